/**
 * Sealed webhook secrets: what the box seals opens only with the same master key and for the webhook it was bound to,
 * tampering is refused, and a secret sealed by the raw key bytes (how the box sealed before it kept a KeyObject) still
 * opens: the stored secrets of existing webhooks survive the change.
 */
import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

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
});
