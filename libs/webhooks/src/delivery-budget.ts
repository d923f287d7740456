/**
 * The deliveries one owner's webhooks may be given per window (WEBHOOK_OWNER_DELIVERY_BUDGET per
 * WEBHOOK_OWNER_BUDGET_WINDOW_SECONDS), counted in Redis by rate-limiter-flexible with an in-process insurance limiter
 * while Redis does not answer; the fan-out withholds what is over it (fan-out.ts).
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export interface DeliveryBudget {
  readonly points: number;
  readonly windowSeconds: number;
  /** Spends up to `wanted` of `ownerId`'s window; resolves how many of them it had left (0 to `wanted`). */
  take(ownerId: number, wanted: number): Promise<number>;
}

export function ownerDeliveryBudget(options: {
  redis: Redis;
  points: number;
  windowSeconds: number;
  keyPrefix?: string;
}): DeliveryBudget {
  const common = {
    keyPrefix: options.keyPrefix ?? 'webhook-owner-deliveries',
    points: options.points,
    duration: options.windowSeconds,
  };
  const limiter = new RateLimiterRedis({
    ...common,
    storeClient: options.redis,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory(common),
  });
  // What was left before this take: the counter after it, less what it added (INCRBY is atomic, so concurrent
  // takes of one owner never grant more than the window's points between them).
  const granted = (res: RateLimiterRes, wanted: number) =>
    Math.max(0, Math.min(wanted, options.points - (res.consumedPoints - wanted)));
  return {
    points: options.points,
    windowSeconds: options.windowSeconds,
    async take(ownerId, wanted) {
      if (wanted <= 0) return 0;
      try {
        return granted(await limiter.consume(String(ownerId), wanted), wanted);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return granted(rejection, wanted);
        throw rejection;
      }
    },
  };
}
