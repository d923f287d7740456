/**
 * Sealed webhook secrets: what the box seals opens only with a key of its ring and for the webhook it was bound to,
 * tampering is refused, the current key seals and the accepted ones still open, and a secret sealed by the raw key
 * bytes (how the box sealed before it kept a KeyObject) still opens.
 */
import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { SecretBox, UnreadableSecretError } from './secret-box';

const MASTER = 'master-key-for-tests-0123456789abcdef';

/** The sealing as the box did it with the raw key bytes (format v1: iv, tag, ciphertext, base64url). */
function sealWithRawKey(plain: string, boundTo: string): string {
  const key = createHmac('sha256', MASTER).update('api-platform webhook secrets').digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(boundTo, 'utf8'));
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
}

describe('sealed webhook secrets', () => {
  const box = new SecretBox(MASTER);

  it('when a secret is sealed, then it opens for its webhook only, with the same master key only, and not once tampered', () => {
    const sealed = box.seal('whsec_one', 'webhook:1');
    expect(box.open(sealed, 'webhook:1')).toBe('whsec_one');
    expect(() => box.open(sealed, 'webhook:2')).toThrow();
    expect(() => new SecretBox(`${MASTER}-other`).open(sealed, 'webhook:1')).toThrow();
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
    expect(() => box.open(`v1.${bytes.toString('base64url')}`, 'webhook:1')).toThrow();
    expect(box.seal('whsec_one', 'webhook:1')).not.toBe(sealed); // a fresh IV each time
  });

  it('when a secret was sealed with the raw key bytes, then it still opens', () => {
    expect(box.open(sealWithRawKey('whsec_before', 'webhook:7'), 'webhook:7')).toBe('whsec_before');
  });

  it('when the key is a ring, then the current key seals, every accepted key opens (saying it is stale), and a key outside the ring does not', () => {
    const OLD = `${MASTER}-old`;
    const NEW = `${MASTER}-new`;
    const sealedBefore = new SecretBox(OLD).seal('whsec_old', 'webhook:3');
    const ring = new SecretBox({ current: NEW, accepted: [NEW, OLD] });
    expect(ring.openWithKey(sealedBefore, 'webhook:3')).toEqual({ plain: 'whsec_old', stale: true });
    const sealedNow = ring.seal('whsec_new', 'webhook:3');
    expect(ring.openWithKey(sealedNow, 'webhook:3')).toEqual({ plain: 'whsec_new', stale: false });
    // Sealed under the current key: the new key alone opens it, the old one alone does not.
    expect(new SecretBox(NEW).open(sealedNow, 'webhook:3')).toBe('whsec_new');
    expect(() => new SecretBox(OLD).open(sealedNow, 'webhook:3')).toThrow(UnreadableSecretError);
    // Retired: a box without the old key refuses what only it sealed.
    expect(() => new SecretBox({ current: NEW, accepted: [NEW, `${MASTER}-other`] }).open(sealedBefore, 'webhook:3')).toThrow(
      UnreadableSecretError,
    );
    expect(() => ring.open('v2.nothing', 'webhook:3')).toThrow(UnreadableSecretError);
  });
});
