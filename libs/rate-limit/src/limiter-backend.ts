/**
 * Where rate-limit counters live: Redis (shared by every instance of the facade and of the gateway) through
 * rate-limiter-flexible, with an in-process insurance limiter that takes over at once while Redis is unreachable;
 * without REDIS_URL, in-process only.
 */
import type { Redis } from 'ioredis';
import { closeRedis, connectRedis, redisReady } from '@platform/config';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logging';
import {
  metricsRecording,
  rateLimitDecisions,
  rateLimitStoreErrors,
  rateLimitStoreFallbacks,
  rateLimitStoreUp,
} from '@platform/metrics';

/**
 * `open`: while Redis is down each instance enforces the budget on its own (in-process insurance limiter), so the
 * service keeps answering and the fleet as a whole may allow up to instances x budget.
 * `closed`: while Redis is down limited requests are refused with 503 + Retry-After (nothing passes unmetered).
 */
export type RateLimitFailMode = 'open' | 'closed';

export interface LimiterSpec {
  /** Redis key prefix, so several budgets share one Redis. */
  keyPrefix: string;
  points: number;
  durationSeconds: number;
  /** Once exhausted, the key stays blocked this long (login throttling). */
  blockDurationSeconds?: number;
}

export interface LimitOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window (or block) resets; at least 1 when denied. */
  resetSeconds: number;
}

export interface Limiter {
  readonly points: number;
  readonly durationSeconds: number;
  /** Takes one point; resolves with the outcome, rejects only with a 503 AppError in `closed` mode while Redis is down. */
  consume(key: string): Promise<LimitOutcome>;
}

export interface LimiterBackend {
  create(spec: LimiterSpec): Limiter;
  /** Resolves true once Redis is connected (at once without Redis), false after `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface LimiterBackendOptions {
  redisUrl?: string | undefined;
  failMode: RateLimitFailMode;
  /** A Redis command not answered within this is abandoned and the insurance limiter decides. */
  commandTimeoutMs: number;
  logger: Logger;
}

export function createLimiterBackend(options: LimiterBackendOptions): LimiterBackend {
  const redis = options.redisUrl
    ? connectRateLimitStore(options.redisUrl, options.commandTimeoutMs, options.logger)
    : undefined;
  return {
    create: (spec) => createLimiter(spec, redis, options.failMode),
    ready: (timeoutMs) => (redis ? redisReady(redis, timeoutMs) : Promise.resolve(true)),
    close: () => closeRedis(redis),
  };
}

/** The rate limiter's connection: its health feeds the rate-limit store metrics. */
function connectRateLimitStore(url: string, commandTimeoutMs: number, logger: Logger): Redis {
  rateLimitStoreUp.set(0);
  return connectRedis(url, commandTimeoutMs, logger, {
    purpose: 'rate limiter',
    fallback: 'using the in-process limiter',
    onReady: () => rateLimitStoreUp.set(1),
    onLost: (cause) => {
      if (cause === 'error') rateLimitStoreErrors.inc();
      rateLimitStoreUp.set(0);
    },
  });
}

/**
 * The in-process insurance limiter: rate-limiter-flexible hands it a `consume` exactly when Redis did not answer (not
 * connected, error, command timeout), so counting those calls counts the fallbacks.
 */
class CountedInsurance extends RateLimiterMemory {
  private readonly labels: { limiter: string };

  constructor(options: ConstructorParameters<typeof RateLimiterMemory>[0] & { keyPrefix: string }) {
    super(options);
    this.labels = { limiter: options.keyPrefix };
  }

  override consume(
    ...args: Parameters<RateLimiterMemory['consume']>
  ): ReturnType<RateLimiterMemory['consume']> {
    rateLimitStoreFallbacks.inc(this.labels);
    return super.consume(...args);
  }
}

function createLimiter(spec: LimiterSpec, redis: Redis | undefined, failMode: RateLimitFailMode): Limiter {
  const common = {
    keyPrefix: spec.keyPrefix,
    points: spec.points,
    duration: spec.durationSeconds,
    ...(spec.blockDurationSeconds ? { blockDuration: spec.blockDurationSeconds } : {}),
  };
  const memory = new RateLimiterMemory(common);
  const store: RateLimiterAbstract = redis
    ? new RateLimiterRedis({
        ...common,
        storeClient: redis,
        rejectIfRedisNotReady: true,
        // A key over budget is refused locally until its window ends: a flood of 429s costs Redis nothing.
        ...(spec.blockDurationSeconds ? {} : { inMemoryBlockOnConsumed: spec.points + 1 }),
        ...(failMode === 'open' ? { insuranceLimiter: new CountedInsurance(common) } : {}),
      })
    : memory;
  const allowed = { limiter: spec.keyPrefix, decision: 'allowed' };
  const limited = { limiter: spec.keyPrefix, decision: 'limited' };
  const outcome = (res: RateLimiterRes, allowed: boolean): LimitOutcome => ({
    allowed,
    limit: spec.points,
    remaining: allowed ? res.remainingPoints : 0,
    resetSeconds: Math.max(allowed ? 0 : 1, Math.ceil(res.msBeforeNext / 1000)),
  });
  return {
    points: spec.points,
    durationSeconds: spec.durationSeconds,
    async consume(key) {
      try {
        const result = outcome(await store.consume(key), true);
        if (metricsRecording()) rateLimitDecisions.inc(allowed);
        return result;
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          rateLimitDecisions.inc(limited);
          return outcome(rejection, false);
        }
        rateLimitDecisions.inc({ limiter: spec.keyPrefix, decision: 'unavailable' });
        // Only reachable in `closed` mode (in `open` mode the insurance limiter answers): Redis is unavailable.
        throw new AppError('SERVICE_UNAVAILABLE', 'Rate limiting temporarily unavailable', {
          cause: rejection,
          headers: { 'retry-after': '1' },
        });
      }
    },
  };
}
