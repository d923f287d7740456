import jwt from 'jsonwebtoken';
import { AccessTokenVerifier } from './token-verifier';
import { signAccessToken } from './jwt';

const SECRET = 'unit-test-secret-with-at-least-32-bytes-0123';
const claims = { sub: 'alice', uid: 7, role: 'member' as const, scopes: ['users:read'], kind: 'user' as const };

describe('AccessTokenVerifier', () => {
  it('when a valid token is verified twice, then both give the same claims', () => {
    const verifier = new AccessTokenVerifier(SECRET);
    const token = signAccessToken(claims, SECRET, 60);
    expect(verifier.verify(token)).toMatchObject(claims);
    expect(verifier.verify(token)).toMatchObject(claims);
  });

  it('when a cached token has expired, then it is refused', () => {
    const verifier = new AccessTokenVerifier(SECRET);
    const token = signAccessToken(claims, SECRET, 60);
    verifier.verify(token);
    expect(() => verifier.verify(token, Date.now() + 61_000)).toThrow('Invalid token');
  });

  it('when a token is signed with another secret or another algorithm, then it is refused and not cached', () => {
    const verifier = new AccessTokenVerifier(SECRET);
    const forged = signAccessToken(claims, 'another-secret-with-at-least-32-bytes-xyz', 60);
    expect(() => verifier.verify(forged)).toThrow('Invalid token');
    expect(verifier.tryVerify(forged)).toBeUndefined();
    const hs512 = jwt.sign(claims, SECRET, { algorithm: 'HS512', expiresIn: 60 });
    expect(() => verifier.verify(hs512)).toThrow('Invalid token');
  });

  it('when more tokens than the bound are verified, then all still verify (the oldest are evicted, not trusted)', () => {
    const verifier = new AccessTokenVerifier(SECRET, 2);
    const tokens = ['a', 'b', 'c'].map((sub) => signAccessToken({ ...claims, sub }, SECRET, 60));
    for (const token of tokens) verifier.verify(token);
    expect(tokens.map((t) => verifier.verify(t).sub)).toEqual(['a', 'b', 'c']);
  });
});
