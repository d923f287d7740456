/**
 * The ioredis options of every Redis client of ours (rate limits, APQ registrations, read-cache generations): no
 * offline queue, so a command fails at once while Redis is away and each caller's own fallback answers (insurance
 * limiter, in-memory APQ, uncached reads); commands of one event-loop turn pipelined into one write; each command
 * bounded; reconnecting every 0.1 .. 1 s, so Redis' return is noticed at once.
 */
import type { RedisOptions } from 'ioredis';

export const failFastRedisOptions = (commandTimeoutMs: number): RedisOptions => ({
  enableOfflineQueue: false,
  enableAutoPipelining: true,
  commandTimeout: commandTimeoutMs,
  maxRetriesPerRequest: 0,
  connectTimeout: 1_000,
  retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  reconnectOnError: () => false,
});
