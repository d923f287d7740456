/** X-RateLimit-* (the spec's names, reset in seconds) and the IETF draft's RateLimit-Policy / RateLimit fields. */
import type { Limiter, LimitOutcome } from './limiter-backend';

export function rateLimitHeaders(outcome: LimitOutcome, limiter: Limiter): Record<string, string> {
  return {
    'x-ratelimit-limit': String(outcome.limit),
    'x-ratelimit-remaining': String(outcome.remaining),
    'x-ratelimit-reset': String(outcome.resetSeconds),
    'ratelimit-policy': `"default";q=${limiter.points};w=${limiter.durationSeconds}`,
    ratelimit: `"default";r=${outcome.remaining};t=${outcome.resetSeconds}`,
  };
}

/** Retry-After for a refusal: at least one second. */
export const retryAfterSeconds = (outcome: LimitOutcome): string => String(Math.max(1, outcome.resetSeconds));
