import { keyRing } from '@platform/auth';
import { FACADE_PROOF_HEADER, facadeProofChecker, facadeProofHeaders } from './facade-proof';

const OLD = 'old-jwt-secret-with-at-least-32-bytes-0000';
const NEW = 'new-jwt-secret-with-at-least-32-bytes-1111';

describe('the facade proof across a JWT key rotation', () => {
  it('when facade and gateway hold rings of consecutive steps, then each recognises the other; a retired key is not', () => {
    const proofOf = (secrets: Parameters<typeof facadeProofHeaders>[0]) => facadeProofHeaders(secrets)[FACADE_PROOF_HEADER];
    const before = keyRing(OLD);
    const published = keyRing(OLD, [NEW]);
    const switched = keyRing(NEW, [OLD]);
    const retired = keyRing(NEW);
    expect(proofOf(published)).toBe(proofOf(OLD));
    expect(facadeProofChecker(published)(proofOf(switched))).toBe(true);
    expect(facadeProofChecker(switched)(proofOf(published))).toBe(true);
    expect(facadeProofChecker(retired)(proofOf(switched))).toBe(true);
    expect(facadeProofChecker(retired)(proofOf(before))).toBe(false);
    expect(facadeProofChecker(switched)('')).toBe(false);
    expect(facadeProofChecker(switched)(undefined)).toBe(false);
  });
});
