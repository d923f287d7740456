/**
 * `Idempotency-Key` on POST (docs/interface.md#idempotency-key; ADR 0012): the first outcome per account and key is
 * stored in Redis for 24 h and replayed to retries with the same request (`Idempotent-Replayed: true`); the same key
 * with another request is 422, a retry while the first still runs 409 + Retry-After. 5xx, 401, 403, 412 and transient
 * 409 outcomes are not kept; a 504 (outcome unknown) keeps the key in progress until the real outcome is known (ADR
 * 0020). Redis unreachable (or, behind Sentinel, a claim or an outcome no replica acknowledged: ADR 0021):
 * IDEMPOTENCY_FAIL_MODE `open` runs the request without the guarantee (`Idempotency-Status: unavailable`), `closed`
 * answers 503 + Retry-After (an outcome not acknowledged is only announced: the request already ran).
 *
 * A record is bound to the stable id of the account behind the credential (the user's id, the API key's id; the client
 * IP without a credential), never to a username another account may take later. A replay goes only to a credential that
 * may make the request now: the caller is established first (a deactivated, deleted or demoted user's token, one issued
 * before a password reset, a revoked key: 401 as a fresh request), and one without the route's scope gets the 403 a
 * fresh request would.
 */
import type { Request, Response } from 'express';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logging';
import { idempotencyRequests, metricsRecording } from '@platform/metrics';
import type { ResolvedCaller } from '@platform/federation';
import {
  createIdempotencyStore,
  IdempotencyUnavailableError,
  type IdempotencyStore,
  type StoredResponse,
} from '@platform/rate-limit';
import type { RestEnvironment } from '../environment';
import { apiVersionOf } from '../versioning/versioning-middleware';
import { errorFormatFor } from './error-handler';
import { LATE_OUTCOME_WAIT_MS } from '../gateway/embedded-gateway';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** 1-255 printable ASCII characters (docs/interface.md#idempotency-key). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
const REPLAY_TTL_MS = 24 * 60 * 60 * 1000;
/** The least a Redis command of the idempotency store may take before the POST runs per IDEMPOTENCY_FAIL_MODE. */
const IDEMPOTENCY_COMMAND_TIMEOUT_MS = 1_000;
/** Response headers that belong to the outcome (the rest, e.g. X-Request-Id and rate-limit headers, are per request). */
const REPLAYED_HEADERS = [
  'cache-control',
  'content-type',
  'location',
  'x-api-version',
  'etag',
  'link',
  'deprecation',
  'sunset',
];

type IdempotencySettings = Pick<
  RestEnvironment,
  | 'REDIS_URL'
  | 'REDIS_COMMAND_TIMEOUT_MS'
  | 'IDEMPOTENCY_FAIL_MODE'
  | 'REQUEST_TIMEOUT_MS'
  | 'GATEWAY_TIMEOUT_MS'
  | 'ERROR_FORMAT'
  | 'jwtSecret'
  | 'idempotencySecret'
>;

export interface Idempotency {
  /**
   * For a POST: validates the header and, when a key is given, claims it. Resolves `replayed` when the response was
   * sent from the store (the route must not run), `proceed` otherwise (the outcome is then captured as it is sent).
   * `store: false` (token-issuing routes) validates the key but keeps nothing: credentials are not stored in Redis.
   * `body`: the body as the route validated it (undefined when the route reads none), so what the route ignores does
   * not tell two requests apart, and no unvalidated body is ever serialised. `caller`: the request's established caller
   * (its account binds the record); `scope`: what the route needs, which a replay needs too.
   */
  guard(
    req: Request,
    res: Response,
    options: { store: boolean; body: unknown; caller: () => Promise<ResolvedCaller>; scope?: string },
  ): Promise<'replayed' | 'proceed'>;
  /**
   * A write answered 504 OUTCOME_UNKNOWN before its operation ended (ADR 0020): its key stays in progress, and the
   * real outcome, once `late` brings it, is stored (or the key released) as if it had been the answer. Without a key it
   * is logged.
   */
  settleLate(res: Response, late: Promise<StoredResponse>): void;
  /** Resolves true once the store's Redis is connected (at once without one), false after `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export function createIdempotency(env: IdempotencySettings, logger: Logger): Idempotency {
  const store: IdempotencyStore = createIdempotencyStore({
    redisUrl: env.REDIS_URL,
    // Not the rate limiter's fail-fast budget: a claim that times out runs the POST without its guarantee, so a Redis
    // that is only slow (a loaded host, a snapshot's fork) would let every concurrent retry create a record. One keyed
    // POST may wait up to a second for its claim; a Redis that is down (not connected) still fails at once.
    commandTimeoutMs: Math.max(env.REDIS_COMMAND_TIMEOUT_MS, IDEMPOTENCY_COMMAND_TIMEOUT_MS),
    logger,
    ttlMs: REPLAY_TTL_MS,
    // A claim outlives the longest the first request can run, a write's late outcome included (ADR 0020); after that
    // it counts as abandoned.
    runningTtlMs: Math.max(env.REQUEST_TIMEOUT_MS + env.GATEWAY_TIMEOUT_MS, LATE_OUTCOME_WAIT_MS + 10_000),
    secret: env.idempotencySecret,
  });
  /** The keyed requests running in this process, by response: what their outcome is stored under. */
  const claims = new WeakMap<Response, { caller: string; key: string; fingerprint: string }>();
  /** Outcomes that come after the client was answered 504, by response. */
  const lateOutcomes = new WeakMap<Response, Promise<StoredResponse>>();

  /**
   * Kept: what the same request would meet again. Not kept, so the key may be used again: a 5xx, a request refused up
   * front that the caller fixes outside the request (401, 403: a valid or wider token; 412: re-read, send the new tag),
   * and a 409 with Retry-After (others kept the record busy: the same request later succeeds). A 504 (the outcome is
   * unknown) neither: the key stays in progress until the late outcome arrives or the claim expires. Resolves false
   * when a kept outcome may be lost: not stored, or (behind Sentinel) acknowledged by no replica.
   */
  const keep = async (
    claim: { caller: string; key: string; fingerprint: string },
    outcome: StoredResponse,
  ): Promise<boolean> => {
    try {
      if (outcome.status === 504) return true;
      const transient = outcome.status === 409 && outcome.headers['retry-after'] !== undefined;
      if (outcome.status >= 500 || NOT_KEPT.has(outcome.status) || transient) {
        await store.release(claim.caller, claim.key);
        return true;
      }
      return await store.complete(claim.caller, claim.key, claim.fingerprint, outcome);
    } catch (error) {
      // The request itself succeeded; a retry will not be a replay (409 until its claim expires, then it runs again).
      logger.warn({ err: { message: (error as Error).message } }, 'idempotency: outcome not stored');
      return false;
    }
  };

  const unavailable = (res: Response, error: unknown): 'proceed' => {
    if (env.IDEMPOTENCY_FAIL_MODE === 'closed') {
      count('refused');
      throw new AppError('SERVICE_UNAVAILABLE', 'Idempotency store temporarily unavailable', {
        cause: error,
        headers: { 'retry-after': '1' },
      });
    }
    count('unavailable');
    res.set('idempotency-status', 'unavailable');
    return 'proceed';
  };

  return {
    async guard(req, res, options) {
      const key = keyOf(req);
      if (key === undefined) return 'proceed';
      if (!options.store) {
        count('not_stored');
        res.set('idempotency-status', 'not-stored');
        return 'proceed';
      }
      // Who may see the outcome: the account, checked now (a refused credential is refused here as it would be fresh).
      const resolved = await options.caller();
      const caller = resolved.account ?? `ip:${req.ip ?? 'unknown'}`;
      // The same request: method, URL as sent, the validated body (whatever the order of its members), its
      // preconditions (an action retried with a fresh If-Match is another request, not the stored 412), and the
      // representation asked for (API version, problem details), which a replay cannot change.
      const fingerprint = store.fingerprint([
        req.method,
        req.originalUrl,
        options.body ?? null,
        req.headers['if-match'] ?? null,
        req.headers['if-none-match'] ?? null,
        apiVersionOf(res) ?? 'current',
        errorFormatFor(req, env.ERROR_FORMAT),
      ]);
      let claim;
      try {
        claim = await store.claim(caller, key, fingerprint);
      } catch (error) {
        if (error instanceof IdempotencyUnavailableError) return unavailable(res, error);
        throw error;
      }
      if (claim.kind !== 'claimed' && claim.fingerprint !== fingerprint) {
        count('key_reused');
        throw new AppError(
          'IDEMPOTENCY_KEY_REUSED',
          'Idempotency-Key was already used with a different request; use a new key',
        );
      }
      if (claim.kind === 'running') {
        count('in_progress');
        throw new AppError(
          'CONFLICT',
          'A request with this Idempotency-Key is still in progress; retry later',
          {
            headers: { 'retry-after': '1' },
          },
        );
      }
      if (claim.kind === 'done') {
        // The scope may have been taken away since (a narrower token of the same account): what a fresh request meets.
        if (options.scope !== undefined && !resolved.principal) {
          throw new AppError('UNAUTHENTICATED', 'Not authenticated', { headers: { 'www-authenticate': 'Bearer' } });
        }
        if (options.scope !== undefined && !resolved.principal?.scopes.includes(options.scope)) {
          throw new AppError('FORBIDDEN', `Not enough permissions. Required: ${options.scope}`);
        }
        count('replayed');
        replay(res, claim.response);
        return 'replayed';
      }
      count('first');
      const held = { caller, key, fingerprint };
      claims.set(res, held);
      captureOutcome(res, async (outcome) => {
        const late = outcome.status === 504 ? lateOutcomes.get(res) : undefined;
        // Answered 504 while the operation still runs: its real outcome is stored when it comes (settleLate).
        if (late) void late.then((settled) => keep(held, settled));
        // Not stored, or (behind Sentinel) on no replica, so a failover would lose it: the client is told, as when the
        // claim could not be made.
        else if (!(await keep(held, outcome))) res.set('idempotency-status', 'unavailable');
      });
      return 'proceed';
    },
    settleLate(res, late) {
      lateOutcomes.set(res, late);
      if (claims.has(res)) return;
      void late.then((outcome) =>
        logger.warn({ status: outcome.status }, 'a write answered 504 (outcome unknown) has ended'),
      );
    },
    ready: (timeoutMs) => store.ready(timeoutMs),
    close: () => store.close(),
  };
}

const NOT_KEPT = new Set([401, 403, 412]);

type Outcome = 'first' | 'replayed' | 'in_progress' | 'key_reused' | 'not_stored' | 'unavailable' | 'refused';

function count(outcome: Outcome): void {
  if (metricsRecording()) idempotencyRequests.inc({ outcome });
}

function keyOf(req: Request): string | undefined {
  const raw = req.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (!IDEMPOTENCY_KEY_PATTERN.test(value)) {
    throw new AppError('BAD_USER_INPUT', 'Idempotency-Key: must be 1 to 255 printable ASCII characters', {
      details: [{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }],
    });
  }
  return value;
}

function replay(res: Response, stored: StoredResponse): void {
  res.set(stored.headers);
  res.set('idempotent-replayed', 'true');
  const body = Buffer.from(stored.body, 'base64');
  res.status(stored.status);
  if (body.length === 0) res.end();
  else res.end(body);
}

/**
 * Holds the response's last write until the outcome is stored, so a client that got the response and retries meets
 * the replay, never its own still-running claim. express writes every body here in one `res.end`.
 */
function captureOutcome(res: Response, store: (outcome: StoredResponse) => Promise<void>): void {
  const originalEnd = res.end.bind(res) as (...args: unknown[]) => Response;
  (res as unknown as { end: (...args: unknown[]) => Response }).end = (...args: unknown[]) => {
    (res as unknown as { end: typeof originalEnd }).end = originalEnd;
    const [chunk, encoding] = args;
    const body =
      chunk === undefined || chunk === null || typeof chunk === 'function'
        ? Buffer.alloc(0)
        : Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = res.getHeader(name);
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    }
    void store({ status: res.statusCode, headers, body: body.toString('base64') }).finally(() =>
      originalEnd(...args),
    );
    return res;
  };
}
