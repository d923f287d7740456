/**
 * Every Redis connection of ours (rate limits, idempotency, APQ registrations, read-cache generations, the login
 * throttle) is opened here, with one failure behaviour: no offline queue, so a command fails at once while Redis is
 * away and each caller's own fallback answers (insurance limiter, in-memory APQ, uncached reads); commands of one
 * event-loop turn pipelined into one write; each command bounded; reconnecting every 0.1 .. 1 s, so Redis' return is
 * noticed at once. A lost and a regained connection are each logged once, naming the connection and its fallback.
 *
 * Where Redis is comes from REDIS_URL: one node (`redis://`, `rediss://`), or a Sentinel group
 * (`redis+sentinel://`, docs/decisions/0021-key-rings-and-redis-failover.md): the Sentinels name the current master,
 * ioredis follows a failover (it asks them again on every reconnect, and drops the connection at once when they
 * announce a new master), and while it switches commands fail fast like any outage. `redisConnectionOptions` is the one
 * translation of REDIS_URL into ioredis options, for any other Redis client of the platform too (BullMQ takes them).
 *
 * The URL parsing is ours: ioredis parses one-node URLs only inside its constructor (its parser is not exported), and
 * no JavaScript library reads a Sentinel URL; the form is the one redis-py's ecosystem uses (redis+sentinel://).
 */
import { Redis, type RedisOptions } from 'ioredis';
import { z } from 'zod';
import type { Logger } from '@platform/logging';

const SENTINEL_PORT = 26379;
const REDIS_PORT = 6379;

/**
 * REDIS_URL as ioredis options (where Redis is and how to authenticate; no failure behaviour):
 * - `redis://[[user]:password@]host[:port][/db]`, `rediss://...` (TLS): one node;
 * - `redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/<master name>[/db][?sentinelUsername=...&sentinelPassword=...]`:
 *   the Sentinels (port 26379 by default) of the master group `<master name>`; the user and password are the data
 *   nodes', `sentinelPassword` (and `sentinelUsername`) the Sentinels' own when they require one.
 * Throws on anything else, naming what is wrong (never echoing the URL: it holds a password).
 */
export function redisConnectionOptions(url: string): RedisOptions {
  const sentinel = /^redis\+sentinel:\/\/(?:([^@/]*)@)?([^/?#]+)(\/[^?#]*)?(?:\?([^#]*))?$/.exec(url);
  if (sentinel) {
    const [, userinfo, hosts, path, query] = sentinel;
    const [name, db, ...extra] = (path ?? '').split('/').slice(1);
    if (!name) throw new Error('a redis+sentinel URL names its master group: redis+sentinel://host:26379/mymaster');
    if (extra.length > 0 || (db !== undefined && !/^\d+$/.test(db)))
      throw new Error('a redis+sentinel URL path is /<master name>[/<db number>]');
    const params = new URLSearchParams(query ?? '');
    for (const key of params.keys())
      if (key !== 'sentinelPassword' && key !== 'sentinelUsername')
        throw new Error(`a redis+sentinel URL takes sentinelPassword and sentinelUsername only, not ${key}`);
    return {
      name: decodeURIComponent(name),
      sentinels: hosts!.split(',').map((host) => hostAndPort(host, SENTINEL_PORT)),
      ...credentials(userinfo),
      ...(db === undefined ? {} : { db: Number(db) }),
      ...(params.get('sentinelUsername') ? { sentinelUsername: params.get('sentinelUsername')! } : {}),
      ...(params.get('sentinelPassword') ? { sentinelPassword: params.get('sentinelPassword')! } : {}),
    };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('not a URL: expected redis://, rediss:// or redis+sentinel://');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    throw new Error('unsupported scheme: expected redis://, rediss:// or redis+sentinel://');
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) throw new Error('the path of a redis URL is a database number');
  if (parsed.hostname === '') throw new Error('a redis URL names its host');
  // Query parameters are ioredis options, as its own URL parser has them (`?family=6`).
  const query = Object.fromEntries(
    [...parsed.searchParams].map(([key, value]) => [key, key === 'family' ? Number(value) : value]),
  );
  return {
    ...query,
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port === '' ? REDIS_PORT : Number(parsed.port),
    ...credentials(parsed.username || parsed.password ? `${parsed.username}:${parsed.password}` : undefined),
    ...(db === '' ? {} : { db: Number(db) }),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

function hostAndPort(text: string, defaultPort: number): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d+))?$/.exec(text.trim());
  if (!match) throw new Error('a redis+sentinel URL lists its Sentinels as host[:port],host[:port],...');
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port: match[2] ? Number(match[2]) : defaultPort };
}

function credentials(userinfo: string | undefined): Pick<RedisOptions, 'username' | 'password'> {
  if (userinfo === undefined || userinfo === '') return {};
  const colon = userinfo.indexOf(':');
  const username = decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon));
  const password = colon < 0 ? '' : decodeURIComponent(userinfo.slice(colon + 1));
  return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

/** REDIS_URL in an environment schema: refused at start (exit 1, every problem listed) when it cannot be read. */
export const redisUrlSchema = z.string().superRefine((url, context) => {
  try {
    redisConnectionOptions(url);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

const isSentinel = (options: RedisOptions): boolean => (options.sentinels?.length ?? 0) > 0;

const reconnectDelay = (attempt: number): number => Math.min(attempt * 100, 1_000);

/** How every connection behind Sentinel follows a failover; nothing for one node. */
const followFailovers = (target: RedisOptions): RedisOptions =>
  isSentinel(target)
    ? {
        // Asking the Sentinels is bounded and retried like the connection itself.
        sentinelCommandTimeout: 1_000,
        sentinelRetryStrategy: reconnectDelay,
        // Subscribed to the Sentinels' +switch-master: the connection to a demoted (or cut off) master is dropped at
        // once instead of when it fails, and the next one goes to the new master.
        failoverDetector: true,
        // A write that meets a master demoted before we noticed: reconnect (through the Sentinels); the command fails.
        reconnectOnError: (error: Error) => (error.message.startsWith('READONLY') ? 1 : false),
      }
    : {};

const failFastRedisOptions = (commandTimeoutMs: number, target: RedisOptions): RedisOptions => ({
  enableOfflineQueue: false,
  enableAutoPipelining: true,
  commandTimeout: commandTimeoutMs,
  maxRetriesPerRequest: 0,
  connectTimeout: 1_000,
  retryStrategy: reconnectDelay,
  reconnectOnError: () => false,
  ...followFailovers(target),
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
  const target = redisConnectionOptions(url);
  const redis = new Redis({ ...target, ...failFastRedisOptions(commandTimeoutMs, target) });
  let healthy = true;
  redis.on('ready', () => {
    if (!healthy) logger.info(`${purpose}: Redis is back`);
    healthy = true;
    // Perhaps another master now (a failover): what was known of its replicas is not.
    connectedReplicas.delete(redis);
    unreplicatedSince.delete(redis);
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
  // ioredis gives a connection up for good when connecting throws rather than fails (behind Sentinel: a failover
  // announced while it was asking the Sentinels, which its failover detector turns into "Connection is closed"). Only
  // closeRedis may end one: any other end starts connecting again.
  redis.on('end', () => {
    if (closing.has(redis)) return;
    setTimeout(() => {
      if (!closing.has(redis) && redis.status === 'end') redis.connect().catch(() => undefined);
    }, 1_000).unref();
  });
  return redis;
}

/** Connections closeRedis ended: the only ones that stay ended. */
const closing = new WeakSet<Redis>();

/** How long a write waits for a replica's acknowledgement (WAIT) before it counts as not replicated. */
const REPLICA_ACK_TIMEOUT_MS = 250;
/** After a WAIT went unanswered, writes count as not replicated this long without waiting again. */
const UNREPLICATED_HOLD_MS = 1_000;
const unreplicatedSince = new WeakMap<Redis, number>();

/** How long the number of replicas connected to the master (ROLE) is taken as known. */
const REPLICAS_KNOWN_MS = 1_000;
const connectedReplicas = new WeakMap<Redis, { count: number; at: number }>();

/**
 * Whether the writes this connection made so far reached a replica (`WAIT 1`), for the writes a failover must not
 * lose (idempotency records). Replication is asynchronous: a master that dies takes the writes it acknowledged but had
 * not yet sent with it, and the promoted replica never had them. With one node there is no failover to lose them
 * to: true at once; likewise behind Sentinel while no replica is connected (none could be promoted without a full
 * copy of the master first; the master's own loss is a one-node outage). Otherwise false when no replica acknowledged
 * within 250 ms: a connected replica lags. WAIT holds this connection's later commands while it waits, so after a miss
 * the next second's writes count as not replicated without waiting (one probe per second while a replica lags).
 * Rejects when Redis does not answer.
 */
export async function writesReplicated(redis: Redis): Promise<boolean> {
  if (!isSentinel(redis.options)) return true;
  if ((await replicasOf(redis)) === 0) return true;
  const since = unreplicatedSince.get(redis);
  if (since !== undefined && Date.now() - since < UNREPLICATED_HOLD_MS) return false;
  const acknowledged = await redis.wait(1, REPLICA_ACK_TIMEOUT_MS);
  if (acknowledged >= 1) {
    unreplicatedSince.delete(redis);
    return true;
  }
  unreplicatedSince.set(redis, Date.now());
  return false;
}

/** The replicas connected to the master this connection writes to, known for REPLICAS_KNOWN_MS at a time. */
async function replicasOf(redis: Redis): Promise<number> {
  const known = connectedReplicas.get(redis);
  if (known && Date.now() - known.at < REPLICAS_KNOWN_MS) return known.count;
  // ROLE on a master: ['master', offset, [[ip, port, offset], ...]].
  const role = (await redis.role()) as [string, number, unknown[]];
  const count = role[0] === 'master' ? role[2].length : 0;
  connectedReplicas.set(redis, { count, at: Date.now() });
  return count;
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
  closing.add(redis);
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
  const target = redisConnectionOptions(url);
  return new Redis({
    ...target,
    maxRetriesPerRequest: null,
    enableOfflineQueue: role === 'worker',
    connectTimeout: 1_000,
    retryStrategy: reconnectDelay,
    // Behind Sentinel the queue follows a failover like every other connection.
    ...followFailovers(target),
  });
}
