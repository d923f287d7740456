import jwt from 'jsonwebtoken';
import { signAccessToken, verifyAccessToken } from './jwt';

const SECRET = 'unit-test-secret-with-at-least-32-bytes-0123';
const claims = {
  sub: 'alice',
  uid: 7,
  role: 'member' as const,
  scopes: ['users:read'],
  kind: 'user' as const,
};

describe('access token claims', () => {
  it('when a token is signed, then iat and exp are whole seconds (NumericDate as typed JWT libraries read it) and exp = iat + ttl', () => {
    const before = Math.floor(Date.now() / 1000);
    const payload = jwt.decode(signAccessToken(claims, SECRET, 1800)) as { iat: number; exp: number };
    expect(Number.isInteger(payload.iat)).toBe(true);
    expect(Number.isInteger(payload.exp)).toBe(true);
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.exp - payload.iat).toBe(1800);
  });

  it('when a login token carries its password version, then it is read back; a pwv that is not a count is refused', () => {
    expect(verifyAccessToken(signAccessToken({ ...claims, pwv: 3 }, SECRET, 60), SECRET).pwv).toBe(3);
    expect(verifyAccessToken(signAccessToken(claims, SECRET, 60), SECRET).pwv).toBeUndefined();
    for (const pwv of [-1, 1.5, '2', null]) {
      const forgedShape = jwt.sign({ ...claims, pwv }, SECRET, { algorithm: 'HS256', expiresIn: 60 });
      expect(() => verifyAccessToken(forgedShape, SECRET)).toThrow('Invalid token');
    }
  });
});
