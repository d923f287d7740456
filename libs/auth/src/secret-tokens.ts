/** High-entropy secrets (API keys, refresh tokens): generated random, stored only as SHA-256 digests. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function generateSecretToken(prefix: string, bytes = 32): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}

export function digestSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares two secrets through their digests: equal lengths always, so timingSafeEqual never throws. */
export function digestsEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right);
}
