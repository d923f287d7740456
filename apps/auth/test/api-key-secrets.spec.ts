/** The secret-token primitives API keys rely on: 32 random bytes, a SHA-256 digest, and a compare that never throws. */
import { digestSecret, digestsEqual, generateSecretToken } from '@platform/auth';

describe('API key secrets', () => {
  it('when two keys of different lengths are compared, then the compare answers false and does not throw', () => {
    expect(() => digestsEqual('ak_short', 'ak_a-much-longer-key-than-the-other-one')).not.toThrow();
    expect(digestsEqual('ak_short', 'ak_a-much-longer-key-than-the-other-one')).toBe(false);
    expect(digestsEqual('', 'x')).toBe(false);
    expect(digestsEqual('x'.repeat(10_000), 'x')).toBe(false);
  });

  it('when equal keys are compared, then the compare answers true; a one-character difference answers false', () => {
    const key = generateSecretToken('ak', 32);
    expect(digestsEqual(key, `${key}`)).toBe(true);
    expect(digestsEqual(key, `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`)).toBe(false);
  });

  it('when a key is generated, then it carries 32 random bytes after the ak_ prefix and differs every time', () => {
    const key = generateSecretToken('ak', 32);
    expect(key).toMatch(/^ak_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(3), 'base64url')).toHaveLength(32);
    expect(generateSecretToken('ak', 32)).not.toBe(key);
  });

  it('when a key is digested, then the digest is 64 hex characters, stable, and does not contain the key', () => {
    const key = generateSecretToken('ak', 32);
    const digest = digestSecret(key);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digestSecret(key)).toBe(digest);
    expect(digest).not.toContain(key.slice(3));
  });
});
