/** Event ids: `evt_` + a monotonic ULID (the `ulid` package): unique across processes and sortable by creation time. */
import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * The ULID's randomness from a pool the system's CSPRNG fills 4 KiB at a time: the package's own source asks
 * `crypto.getRandomValues` for one byte per character, sixteen calls per id (about 100 µs of a write's CPU, measured
 * in the items subgraph's profile under `npm run bench:events`).
 */
const pool = Buffer.alloc(4096);
let used = pool.length;
const pooledRandom = (): number => {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++]! / 256;
};

const next = monotonicFactory(pooledRandom);

export const EVENT_ID_PREFIX = 'evt_';

export const newEventId = (at: number = Date.now()): string => `${EVENT_ID_PREFIX}${next(at)}`;

/** `evt_` + 26 Crockford base32 characters. */
export const EVENT_ID_PATTERN = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;

export const isEventId = (value: unknown): value is string =>
  typeof value === 'string' && EVENT_ID_PATTERN.test(value);
