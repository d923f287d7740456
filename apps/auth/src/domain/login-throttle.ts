/**
 * The one login throttle, where credentials are checked, so every way to log in (REST `/token` and `/auth/token`, the
 * GraphQL `login` mutation, any future one) shares it: each attempt takes a point from the budget of its client IP +
 * username; once spent, that pair is refused (429 / RATE_LIMITED with the retry time) for the block duration. Counters
 * live in Redis (shared by every auth replica), in-process while Redis is unreachable (libs/rate-limit).
 */
import { AppError } from '@platform/errors';
import { loginThrottleBlocks } from '@platform/metrics';
import { retryAfterSeconds, type Limiter } from '@platform/rate-limit';

export class LoginThrottle {
  constructor(private readonly limiter: Limiter) {}

  /** Takes one attempt for this client and username; throws RATE_LIMITED (Retry-After) when the budget is spent. */
  async attempt(username: string, clientIp: string | undefined): Promise<void> {
    // Case and surrounding blanks do not make another account to guess at.
    const key = `ip:${clientIp ?? 'unknown'}|${username.trim().toLowerCase().slice(0, 256)}`;
    const outcome = await this.limiter.consume(key);
    if (!outcome.allowed) {
      loginThrottleBlocks.inc();
      throw new AppError('RATE_LIMITED', 'Too many login attempts; try again later', {
        headers: { 'retry-after': retryAfterSeconds(outcome) },
      });
    }
  }
}
