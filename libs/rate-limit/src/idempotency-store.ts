/**
 * Where idempotent POST outcomes live (CONTRACT.md: replays kept 24 h per caller and key): one Redis key per caller and
 * Idempotency-Key, claimed with a single `SET NX PX` (atomic on every Redis), then overwritten with the outcome.
 * A claim that is never completed (the process died mid-request) expires after `runningTtlMs`, so a retry runs again.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '@platform/logging';
import { closeRedis, connectRedis } from '@platform/config';

/** A stored outcome: what a replay sends back. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** The body, base64. */
  body: string;
}

export type ClaimOutcome =
  | { kind: 'claimed' }
  | { kind: 'running'; fingerprint: string }
  | { kind: 'done'; fingerprint: string; response: StoredResponse };

export interface IdempotencyStore {
  /** Claims `caller`+`key` for a request with this fingerprint, or says what holds the claim. Rejects when Redis is down. */
  claim(caller: string, key: string, fingerprint: string): Promise<ClaimOutcome>;
  /** Stores the outcome for `ttlMs` (replaces the claim). */
  complete(caller: string, key: string, fingerprint: string, response: StoredResponse): Promise<void>;
  /** Gives the claim up (a 5xx outcome is not kept: the retry runs again). */
  release(caller: string, key: string): Promise<void>;
  close(): Promise<void>;
}

export interface IdempotencyStoreOptions {
  redisUrl?: string | undefined;
  commandTimeoutMs: number;
  logger: Logger;
  /** How long an outcome is replayed (24 h by the contract). */
  ttlMs: number;
  /** How long an unfinished claim blocks retries (409) before it counts as abandoned. */
  runningTtlMs: number;
}

type Stored = { fp: string; state: 'running' } | { fp: string; state: 'done'; response: StoredResponse };

/** Neither the caller's credential nor the raw key is stored: the Redis key holds a digest of both. */
const redisKeyOf = (caller: string, key: string): string =>
  `idem:${createHash('sha256').update(caller).update('\0').update(key).digest('base64url')}`;

export class IdempotencyUnavailableError extends Error {}

export function createIdempotencyStore(options: IdempotencyStoreOptions): IdempotencyStore {
  const redis: Redis | undefined = options.redisUrl
    ? connectRedis(options.redisUrl, options.commandTimeoutMs, options.logger, {
        purpose: 'idempotency',
        fallback: 'POSTs with Idempotency-Key run per IDEMPOTENCY_FAIL_MODE',
      })
    : undefined;
  const client = (): Redis => {
    if (!redis || redis.status !== 'ready') throw new IdempotencyUnavailableError('Redis not connected');
    return redis;
  };
  const guarded = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (error instanceof IdempotencyUnavailableError) throw error;
      throw new IdempotencyUnavailableError('Redis command failed', { cause: error });
    }
  };

  return {
    claim: (caller, key, fingerprint) =>
      guarded(async () => {
        const redisKey = redisKeyOf(caller, key);
        const running = JSON.stringify({ fp: fingerprint, state: 'running' } satisfies Stored);
        // Twice at most: the holder's value may expire between our SET and GET.
        for (let attempt = 0; attempt < 2; attempt++) {
          if ((await client().set(redisKey, running, 'PX', options.runningTtlMs, 'NX')) === 'OK')
            return { kind: 'claimed' };
          const current = await client().get(redisKey);
          if (current === null) continue;
          const stored = JSON.parse(current) as Stored;
          return stored.state === 'done'
            ? { kind: 'done', fingerprint: stored.fp, response: stored.response }
            : { kind: 'running', fingerprint: stored.fp };
        }
        return { kind: 'running', fingerprint };
      }),
    complete: (caller, key, fingerprint, response) =>
      guarded(async () => {
        const value = JSON.stringify({ fp: fingerprint, state: 'done', response } satisfies Stored);
        await client().set(redisKeyOf(caller, key), value, 'PX', options.ttlMs);
      }),
    release: (caller, key) =>
      guarded(async () => {
        await client().del(redisKeyOf(caller, key));
      }),
    close: () => closeRedis(redis),
  };
}
