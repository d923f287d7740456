/**
 * Where idempotent POST outcomes live (docs/interface.md#idempotency-key: replays kept 24 h per caller and key): one
 * Redis key per caller and Idempotency-Key, claimed with a single `SET NX PX` (atomic on every Redis), then overwritten
 * with the outcome. A claim that is never completed (the process died mid-request) expires after `runningTtlMs`, so a
 * retry runs again.
 *
 * Redis holds nothing a reader of it could use (ADR 0012): the key is an HMAC of caller and Idempotency-Key, the
 * request's fingerprint an HMAC of the request (a registration's password cannot be guessed against it offline), and
 * the outcome is sealed with AES-256-GCM under a key derived from the server secret, the caller and the raw
 * Idempotency-Key, which is never stored: a created API key's secret in a stored outcome is readable only by a retry of
 * that caller with that key.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import stringify from 'safe-stable-stringify';
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
  /**
   * The fingerprint of a request (whatever identifies it: method, URL, body, representation), the same for the same
   * JSON whatever the order of its members.
   */
  fingerprint(request: unknown): string;
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
  /** The server secret the Redis keys, fingerprints and sealed outcomes derive from (the facade's JWT secret). */
  secret: string;
}

/** `sealed`: the StoredResponse's JSON, AES-256-GCM: 12-byte IV, 16-byte tag, ciphertext; base64. */
type Stored = { fp: string; state: 'running' } | { fp: string; state: 'done'; sealed: string };

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

  const hmac = (purpose: string, ...parts: string[]): Buffer => {
    const mac = createHmac('sha256', options.secret).update(purpose);
    for (const part of parts) mac.update('\0').update(part);
    return mac.digest();
  };
  const redisKeyOf = (caller: string, key: string): string =>
    `idem:${hmac('idempotency-key', caller, key).toString('base64url')}`;
  const seal = (caller: string, key: string, response: StoredResponse): string => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', hmac('idempotency-outcome', caller, key), iv);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(response), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
  };
  const unseal = (caller: string, key: string, sealed: string): StoredResponse => {
    const bytes = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', hmac('idempotency-outcome', caller, key), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return JSON.parse(
      Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8'),
    ) as StoredResponse;
  };

  return {
    fingerprint: (request) => hmac('idempotency-request', stringify(request) ?? '').toString('base64url'),
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
            ? { kind: 'done', fingerprint: stored.fp, response: unseal(caller, key, stored.sealed) }
            : { kind: 'running', fingerprint: stored.fp };
        }
        return { kind: 'running', fingerprint };
      }),
    complete: (caller, key, fingerprint, response) =>
      guarded(async () => {
        const sealed = seal(caller, key, response);
        const value = JSON.stringify({ fp: fingerprint, state: 'done', sealed } satisfies Stored);
        await client().set(redisKeyOf(caller, key), value, 'PX', options.ttlMs);
      }),
    release: (caller, key) =>
      guarded(async () => {
        await client().del(redisKeyOf(caller, key));
      }),
    close: () => closeRedis(redis),
  };
}
