/** The credential alphabets: what generated and configured credentials look like passes, everything else is a 401. */
import { generateSecretToken } from './secret-tokens';
import { bearerTokenFrom, signAccessToken } from './jwt';
import { isWellFormedAccessToken, isWellFormedApiKey, malformedCredentialError } from './credential-format';

const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';
const jwt = () => signAccessToken({ sub: 'a', uid: 1, role: 'member', scopes: ['items:read'], kind: 'user' }, SECRET, 60);
const BAD = ['ak_a\nb', 'ak_a\rb', 'ak_a\u0000b', 'ak_a b', 'ak_a\tb', 'ak_aéb', 'ak_a漢b', 'ak_a\u007fb', ''];

describe('credential alphabets', () => {
  it('when keys are generated or configured as the tests do, then they are well formed', () => {
    for (let i = 0; i < 200; i += 1) expect(isWellFormedApiKey(generateSecretToken('ak'))).toBe(true);
    expect(isWellFormedApiKey('test-bootstrap-api-key-0123456789')).toBe(true);
    expect(isWellFormedApiKey('!#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')).toBe(true);
    expect(isWellFormedApiKey('x'.repeat(512))).toBe(true);
  });

  it.each(BAD)('when a key holds a character outside visible ASCII (%j), then it is malformed', (key) => {
    expect(isWellFormedApiKey(key)).toBe(false);
    expect(malformedCredentialError(undefined, key)?.message).toBe('Invalid API Key');
  });

  it('when a key is longer than 512 characters, then it is malformed', () => {
    expect(isWellFormedApiKey('x'.repeat(513))).toBe(false);
  });

  it('when a signed token is checked, then it is well formed; anything but three base64url segments is not', () => {
    expect(isWellFormedAccessToken(jwt())).toBe(true);
    for (const token of ['a.b', 'a.b.', 'a..c', 'a.b.c.d', 'a.b.c=', 'a.b+c.d', 'a.b.cé', 'a.b.c漢', `a.b.${'c'.repeat(4096)}`]) {
      expect({ token: token.slice(0, 20), ok: isWellFormedAccessToken(token) }).toEqual({ token: token.slice(0, 20), ok: false });
    }
  });

  it('when Authorization is a Bearer with a malformed token, then Invalid token; other schemes are not judged here', () => {
    expect(malformedCredentialError(`Bearer ${jwt()}`, undefined)).toBeNull();
    expect(malformedCredentialError(`bearer   ${jwt()} `, undefined)).toBeNull();
    for (const header of ['Bearer', 'Bearer ', 'Bearer a b', 'Bearer a.b.cé', 'Bearer not-a-jwt']) {
      expect(malformedCredentialError(header, undefined)?.message).toBe('Invalid token');
      expect(() => bearerTokenFrom(header)).toThrow('Invalid token');
    }
    expect(malformedCredentialError('Basic dXNlcjpwYXNz', undefined)).toBeNull();
    expect(malformedCredentialError(undefined, undefined)).toBeNull();
  });

  it('when both are present, then the bearer is judged first and a bad key still fails', () => {
    expect(malformedCredentialError('Bearer a b', 'ak_a b')?.message).toBe('Invalid token');
    expect(malformedCredentialError(`Bearer ${jwt()}`, 'ak_a\nb')?.message).toBe('Invalid API Key');
  });
});
