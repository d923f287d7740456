/**
 * A shared secret during its rotation (docs/decisions/0021-key-rings-and-redis-failover.md): `current` is the one
 * value used to sign, send or seal; `accepted` (current first) are the values still verified, accepted from a caller or
 * opened. A rotation without an outage is three rollouts: add the new value to the accepted ones (every process then
 * accepts what any will make), make it current (the old one stays accepted), retire the old one once nothing made
 * with it is still valid. A plain string is a ring of one, so callers and tests that hold one secret pass it as is.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface KeyRing<T = string> {
  /** What signs, is sent, seals. */
  readonly current: T;
  /** What verifies, is accepted, opens: `current` first, then the others in the order configured. */
  readonly accepted: readonly T[];
}

/** One secret, or a ring of them: what every function taking a shared secret accepts. */
export type Secrets = string | KeyRing;

/** A ring from its current value and the others still accepted (duplicates of the current one dropped). */
export function keyRing(current: string, others: readonly string[] = []): KeyRing {
  return { current, accepted: [current, ...others.filter((other) => other !== current)] };
}

/** A string as a ring of one; a ring as it is. */
export const ringOf = (secrets: Secrets): KeyRing =>
  typeof secrets === 'string' ? { current: secrets, accepted: [secrets] } : secrets;

/** The same ring with every value derived (a cursor key, a proof, a development secret), order kept. */
export function mapRing<T, U>(ring: KeyRing<T>, derive: (value: T) => U): KeyRing<U> {
  const current = derive(ring.current);
  return { current, accepted: [current, ...ring.accepted.slice(1).map(derive)] };
}

/**
 * Whether `presented` equals one of the accepted values, each compared in constant time (a value's length is no
 * secret: `timingSafeEqual` needs equal lengths).
 */
export function acceptsValue(ring: KeyRing<Buffer>, presented: Buffer): boolean {
  let accepted = false;
  for (const value of ring.accepted) {
    if (value.length === presented.length && timingSafeEqual(value, presented)) accepted = true;
  }
  return accepted;
}

/**
 * The `kid` of a signing secret: derived from it (an HMAC, so it tells nothing a token's own signature does not), the
 * same in every process that holds the secret, so no key needs a name of its own.
 */
export const keyIdOf = (secret: string): string =>
  createHmac('sha256', secret).update('api-platform/jwt-key-id').digest('base64url').slice(0, 16);
