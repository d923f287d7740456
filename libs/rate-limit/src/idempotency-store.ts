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
 *
 * The secret is a key ring (IDEMPOTENCY_SECRET and, during its rotation, IDEMPOTENCY_SECRET_ACCEPTED): a record is
 * claimed and sealed under the current secret, and looked up under every accepted one in the same atomic step, so a
 * retry served by a process of the other side of a rotation finds the record (and opens it) instead of running again.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import stringify from 'safe-stable-stringify';
import { ringOf, type Secrets } from '@platform/auth';
import type { Logger } from '@platform/logging';
import { closeRedis, connectRedis, redisReady, writesReplicated } from '@platform/config';

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
   * JSON whatever the order of its members. Opaque (it holds one HMAC per accepted secret).
   */
  fingerprint(request: unknown): string;
  /**
   * Claims `caller`+`key` for a request with this fingerprint, or says what holds the claim: its `fingerprint` equals
   * the one given exactly when it holds the same request. Rejects when Redis is down, and when a new claim did not reach
   * a replica (behind Sentinel: a failover would lose it, and a retry would run again beside this request); the claim
   * is then given up.
   */
  claim(caller: string, key: string, fingerprint: string): Promise<ClaimOutcome>;
  /**
   * Stores the outcome for `ttlMs` (replaces the claim). Resolves false when it did not reach a replica (behind
   * Sentinel): it replays until a failover, which would lose it.
   */
  complete(caller: string, key: string, fingerprint: string, response: StoredResponse): Promise<boolean>;
  /** Gives the claim up (a 5xx outcome is not kept: the retry runs again). */
  release(caller: string, key: string): Promise<void>;
  /** Resolves true once Redis is connected (at once without Redis), false after `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean>;
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
  /** What the Redis keys, fingerprints and sealed outcomes derive from (IDEMPOTENCY_SECRET's ring). */
  secret: Secrets;
}

/** `sealed`: the StoredResponse's JSON, AES-256-GCM: 12-byte IV, 16-byte tag, ciphertext; base64. */
type Stored = { fp: string; state: 'running' } | { fp: string; state: 'done'; sealed: string };

export class IdempotencyUnavailableError extends Error {}

/** How long a request's outcome is retried when Redis fails just after its claim (the response waits meanwhile). */
const COMPLETE_WAIT_MS = 5_000;
const COMPLETE_RETRY_MS = 200;

/**
 * The claim: the first record found under any accepted secret's key (its 1-based position and value), else the
 * claim set under the current secret's key (KEYS[1]), answered 0. One script, so two retries served by processes on
 * either side of a rotation cannot both claim.
 */
const CLAIM_SCRIPT = `
for i = 1, #KEYS do
  local value = redis.call('GET', KEYS[i])
  if value then return {i, value} end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {0}
`;

interface ClaimCommands {
  claimIdempotencyKey(...args: [number, ...string[]]): Promise<[number, string?]>;
}

export function createIdempotencyStore(options: IdempotencyStoreOptions): IdempotencyStore {
  const redis = options.redisUrl
    ? (connectRedis(options.redisUrl, options.commandTimeoutMs, options.logger, {
        purpose: 'idempotency',
        fallback: 'POSTs with Idempotency-Key run per IDEMPOTENCY_FAIL_MODE',
      }) as Redis & ClaimCommands)
    : undefined;
  redis?.defineCommand('claimIdempotencyKey', { lua: CLAIM_SCRIPT });
  const secrets = ringOf(options.secret).accepted;
  const client = (): Redis & ClaimCommands => {
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

  /** Position 0 in `secrets` is the current secret; the others are only looked up and opened. */
  const hmac = (secret: number, purpose: string, ...parts: string[]): Buffer => {
    const mac = createHmac('sha256', secrets[secret]!).update(purpose);
    for (const part of parts) mac.update('\0').update(part);
    return mac.digest();
  };
  const redisKeyOf = (secret: number, caller: string, key: string): string =>
    `idem:${hmac(secret, 'idempotency-key', caller, key).toString('base64url')}`;
  /** A request's fingerprint under each accepted secret, space-separated (a record compares with its own secret's). */
  const fingerprintsOf = (fingerprint: string): string[] => fingerprint.split(' ');
  const seal = (caller: string, key: string, response: StoredResponse): string => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', hmac(0, 'idempotency-outcome', caller, key), iv);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(response), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
  };
  const unseal = (secret: number, caller: string, key: string, sealed: string): StoredResponse => {
    const bytes = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', hmac(secret, 'idempotency-outcome', caller, key), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return JSON.parse(
      Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8'),
    ) as StoredResponse;
  };

  return {
    fingerprint: (request) => {
      const text = stringify(request) ?? '';
      return secrets.map((_, secret) => hmac(secret, 'idempotency-request', text).toString('base64url')).join(' ');
    },
    claim: (caller, key, fingerprint) =>
      guarded(async () => {
        const keys = secrets.map((_, secret) => redisKeyOf(secret, caller, key));
        const running = JSON.stringify({ fp: fingerprintsOf(fingerprint)[0]!, state: 'running' } satisfies Stored);
        const [found, value] = await client().claimIdempotencyKey(
          keys.length,
          ...keys,
          running,
          String(options.runningTtlMs),
        );
        if (found === 0 || value === undefined) {
          if (await writesReplicated(client())) return { kind: 'claimed' };
          await client().del(keys[0]!);
          throw new IdempotencyUnavailableError('the claim did not reach a replica');
        }
        const secret = found - 1;
        const stored = JSON.parse(value) as Stored;
        // The same request (its fingerprint under the record's own secret) answers with the caller's fingerprint.
        const sameRequest = fingerprintsOf(fingerprint)[secret] === stored.fp ? fingerprint : stored.fp;
        return stored.state === 'done'
          ? { kind: 'done', fingerprint: sameRequest, response: unseal(secret, caller, key, stored.sealed) }
          : { kind: 'running', fingerprint: sameRequest };
      }),
    complete: async (caller, key, fingerprint, response) => {
      const sealed = seal(caller, key, response);
      const value = JSON.stringify({ fp: fingerprintsOf(fingerprint)[0]!, state: 'done', sealed } satisfies Stored);
      const store = () =>
        guarded(async () => {
          await client().set(redisKeyOf(0, caller, key), value, 'PX', options.ttlMs);
          return writesReplicated(client());
        });
      // The claim is in Redis (on a replica too, behind Sentinel) and blocks retries until its outcome is stored, or
      // for runningTtlMs. A Redis that just went away (a failover takes seconds) gets the outcome once it is back,
      // within COMPLETE_WAIT_MS, so the retry replays instead of meeting 409 and then running again.
      const deadline = Date.now() + COMPLETE_WAIT_MS;
      for (;;) {
        try {
          return await store();
        } catch (error) {
          if (Date.now() >= deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, COMPLETE_RETRY_MS));
        }
      }
    },
    release: (caller, key) =>
      guarded(async () => {
        await client().del(redisKeyOf(0, caller, key));
      }),
    ready: (timeoutMs) => (redis ? redisReady(redis, timeoutMs) : Promise.resolve(true)),
    close: () => closeRedis(redis),
  };
}
