import type { IncomingMessage, ServerResponse } from 'node:http';
import jwt from 'jsonwebtoken';
import { keyIdOf, keyRing } from './key-ring';
import { signAccessToken, signInternalToken, verifyAccessToken } from './jwt';
import { AccessTokenVerifier } from './token-verifier';
import { requireSubgraphSecret, SUBGRAPH_SECRET_HEADER, subgraphSecretHeaders } from './subgraph-secret';

const OLD = 'old-signing-secret-with-at-least-32-bytes-000';
const NEW = 'new-signing-secret-with-at-least-32-bytes-111';
const claims = { sub: 'alice', uid: 7, role: 'member' as const, scopes: ['users:read'], kind: 'user' as const };
const headerOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;

describe('key rings: JWT keys with kid', () => {
  it('when a ring signs, then the token names the current key by kid, derived from the secret alone', () => {
    const token = signAccessToken(claims, keyRing(NEW, [OLD]), 60);
    expect(headerOf(token)).toEqual({ alg: 'HS256', typ: 'JWT', kid: keyIdOf(NEW) });
    expect(keyIdOf(NEW)).toBe(keyIdOf(NEW));
    expect(keyIdOf(NEW)).not.toBe(keyIdOf(OLD));
    expect(keyIdOf(NEW)).not.toContain(NEW.slice(0, 8));
  });

  it('when the three rotation steps are walked, then every token made at one step verifies at the next, and the retired key is refused', () => {
    const before = keyRing(OLD);
    const published = keyRing(OLD, [NEW]); // step 1: the new key is accepted everywhere, not yet used
    const switched = keyRing(NEW, [OLD]); // step 2: the new key signs, the old one still verifies
    const retired = keyRing(NEW); // step 3: the old key is gone
    const oldToken = signAccessToken(claims, before, 60);
    const newToken = signAccessToken(claims, switched, 60);
    for (const ring of [before, published, switched]) expect(verifyAccessToken(oldToken, ring).sub).toBe('alice');
    // A pod still at step 1 accepts what a pod at step 2 signs: the rolling restart of step 2 refuses nobody.
    for (const ring of [published, switched, retired]) expect(verifyAccessToken(newToken, ring).sub).toBe('alice');
    expect(() => verifyAccessToken(newToken, before)).toThrow('Invalid token');
    expect(() => verifyAccessToken(oldToken, retired)).toThrow('Invalid token');
    expect(() => new AccessTokenVerifier(retired).verify(oldToken)).toThrow('Invalid token');
  });

  it('when a token has no kid (signed before key ids), then each accepted key is tried; an unknown or odd kid is refused', () => {
    const legacy = jwt.sign({ ...claims }, OLD, { algorithm: 'HS256', expiresIn: 60 });
    expect(headerOf(legacy)['kid']).toBeUndefined();
    expect(verifyAccessToken(legacy, keyRing(NEW, [OLD])).sub).toBe('alice');
    expect(() => verifyAccessToken(legacy, keyRing(NEW))).toThrow('Invalid token');
    const unknownKid = jwt.sign({ ...claims }, OLD, { algorithm: 'HS256', expiresIn: 60, keyid: 'not-a-key-of-ours' });
    expect(() => verifyAccessToken(unknownKid, keyRing(NEW, [OLD]))).toThrow('Invalid token');
    // A kid naming one accepted key but signed with another is refused: the kid picks the key, it is not a hint.
    const mislabelled = jwt.sign({ ...claims }, OLD, { algorithm: 'HS256', expiresIn: 60, keyid: keyIdOf(NEW) });
    expect(() => verifyAccessToken(mislabelled, keyRing(NEW, [OLD]))).toThrow('Invalid token');
    expect(() => verifyAccessToken('e30.e30.sig', keyRing(NEW, [OLD]))).toThrow('Invalid token');
  });

  it('when an internal token is made with a ring, then a subgraph holding the previous ring still verifies it', () => {
    const token = signInternalToken('users', keyRing(NEW, [OLD]));
    expect(verifyAccessToken(token, keyRing(OLD, [NEW])).kind).toBe('service');
  });

  it('when one string is given, then it is a ring of one (as before key rings)', () => {
    const token = signAccessToken(claims, OLD, 60);
    expect(headerOf(token)['kid']).toBe(keyIdOf(OLD));
    expect(verifyAccessToken(token, OLD).sub).toBe('alice');
    expect(verifyAccessToken(token, keyRing(NEW, [OLD])).sub).toBe('alice');
  });
});

describe('key rings: the subgraph secret', () => {
  const answer = (secret: Parameters<typeof requireSubgraphSecret>[1], presented: string | undefined): number => {
    let status = 0;
    const res = {
      writeHead: (code: number) => {
        status = code;
        return { end: () => undefined };
      },
    } as unknown as ServerResponse;
    const req = { headers: presented === undefined ? {} : { [SUBGRAPH_SECRET_HEADER]: presented } } as IncomingMessage;
    requireSubgraphSecret(() => (status = 200), secret)(req, res);
    return status;
  };

  it('when a subgraph holds a ring, then the current and the other accepted values get in and nothing else does; callers send the current one', () => {
    const ring = keyRing(NEW, [OLD]);
    expect(subgraphSecretHeaders(ring)).toEqual({ [SUBGRAPH_SECRET_HEADER]: NEW });
    expect(answer(ring, NEW)).toBe(200);
    expect(answer(ring, OLD)).toBe(200);
    expect(answer(ring, 'x'.repeat(NEW.length))).toBe(401);
    expect(answer(ring, undefined)).toBe(401);
    expect(answer(keyRing(NEW), OLD)).toBe(401);
  });
});
