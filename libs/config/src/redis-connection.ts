/**
 * Every Redis connection of ours (rate limits, idempotency, APQ registrations, read-cache generations) is opened here,
 * with one failure behaviour: no offline queue, so a command fails at once while Redis is away and each caller's own
 * fallback answers (insurance limiter, in-memory APQ, uncached reads); commands of one event-loop turn pipelined into
 * one write; each command bounded; reconnecting every 0.1 .. 1 s, so Redis' return is noticed at once. A lost and a
 * regained connection are each logged once, naming the connection and its fallback.
 */
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '@platform/logging';

const failFastRedisOptions = (commandTimeoutMs: number): RedisOptions => ({
  enableOfflineQueue: false,
  enableAutoPipelining: true,
  commandTimeout: commandTimeoutMs,
  maxRetriesPerRequest: 0,
  connectTimeout: 1_000,
  retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  reconnectOnError: () => false,
});

export interface RedisConnection {
  /** Names the connection in the logs: `rate limiter`. */
  purpose: string;
  /** What happens while Redis is unreachable, for the log line: `using the in-process limiter`. */
  fallback: string;
  /** Each time the connection errs (`error`) or closes (`close`), healthy or not. */
  onLost?: (cause: 'error' | 'close') => void;
  /** Each time the connection is (again) ready. */
  onReady?: () => void;
}

export function connectRedis(
  url: string,
  commandTimeoutMs: number,
  logger: Logger,
  connection: RedisConnection,
): Redis {
  const { purpose, fallback } = connection;
  const redis = new Redis(url, failFastRedisOptions(commandTimeoutMs));
  let healthy = true;
  redis.on('ready', () => {
    if (!healthy) logger.info(`${purpose}: Redis is back`);
    healthy = true;
    connection.onReady?.();
  });
  redis.on('error', (error: Error) => {
    if (healthy)
      logger.warn({ err: { message: error.message } }, `${purpose}: Redis unreachable; ${fallback}`);
    healthy = false;
    connection.onLost?.('error');
  });
  redis.on('close', () => {
    if (healthy) logger.warn(`${purpose}: Redis connection closed; ${fallback}`);
    healthy = false;
    connection.onLost?.('close');
  });
  return redis;
}

/** Resolves true once connected (at once when it is), false after `timeoutMs`. */
export function redisReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.once('ready', onReady);
  });
}

/** Quits politely, or drops the connection when Redis is not there to answer. */
export async function closeRedis(redis: Redis | undefined): Promise<void> {
  if (!redis) return;
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

/**
 * A connection for the delivery queue (BullMQ): the same URL as every other connection of the process. BullMQ needs
 * `maxRetriesPerRequest: null` (its blocking commands wait on purpose); the producer side (`queue`) keeps no offline
 * queue, so a delivery queued while Redis is away fails at once and is left to the worker's sweep, which queues what
 * the database says is due; the worker's side waits for Redis to come back.
 */
export function queueConnection(url: string, role: 'queue' | 'worker'): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: null,
    enableOfflineQueue: role === 'worker',
    connectTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
}
