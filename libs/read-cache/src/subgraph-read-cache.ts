/**
 * The reading side of the read cache, where the gateway's executor fetches from a subgraph (the gateway process and
 * the facade's embedded executor): query answers kept in-process (bounded LRU) per subgraph, request body and the
 * caller's rights, each valid only while its subgraph's generation in Redis is the one read before it was fetched
 * (docs/decisions/0017-read-cache.md). The generation counters live here too; the writing side (subgraph-writes.ts)
 * bumps them through the same class.
 */
import { randomInt } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { AccessTokenVerifier, bearerTokenFrom } from '@platform/auth';
import { closeRedis, connectRedis } from '@platform/config';
import type { Logger } from '@platform/logging';
import { metricsRecording, readCacheLookups, readCacheResets } from '@platform/metrics';

/*
 * Per-subgraph generation counters in Redis, the one fact readers and writers of the read cache share: a subgraph bumps
 * its generation after every write, a reader reads it before every fetch and keeps answers under it
 * (docs/decisions/0017-read-cache.md).
 */
const KEY_PREFIX = 'read-cache:generation:';

const generationKey = (subgraph: string): string => `${KEY_PREFIX}${subgraph}`;

/**
 * INCR that never restarts from a small number: a missing key (Redis restarted empty, flushed, or the key evicted)
 * starts again from a random 48-bit value, so a generation seen before the loss is not met again by chance
 * (an entry of generation 3 must not serve again after the counter went 1, 2, 3 in a fresh Redis).
 */
const BUMP_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('SET', KEYS[1], ARGV[1]) end
return redis.call('INCR', KEYS[1])
`;

interface GenerationCommands {
  bumpGeneration(key: string, start: string): Promise<number>;
}

export interface GenerationsOptions {
  redisUrl: string;
  /** A command not answered within this fails (the reader then reads through, the writer retries). */
  commandTimeoutMs: number;
  logger: Logger;
  /** Names the connection in the logs. */
  purpose: string;
  /** What happens while Redis is unreachable, for the log line. */
  fallback: string;
}

/**
 * The generations' Redis connection (libs/config `connectRedis`: no offline queue, so while Redis is away a command
 * fails at once; readers must not wait, and an unknown generation means "do not cache").
 */
export class RedisGenerations {
  private readonly redis: Redis & GenerationCommands;
  private readonly lostListeners: Array<() => void> = [];
  private readonly backListeners: Array<() => void> = [];

  constructor(options: GenerationsOptions) {
    this.redis = connectRedis(options.redisUrl, options.commandTimeoutMs, options.logger, {
      purpose: options.purpose,
      fallback: options.fallback,
      onLost: () => this.lostListeners.forEach((listener) => listener()),
      onReady: () => this.backListeners.forEach((listener) => listener()),
    }) as Redis & GenerationCommands;
    this.redis.defineCommand('bumpGeneration', { numberOfKeys: 1, lua: BUMP_SCRIPT });
  }

  /** Called whenever the connection errs or closes (a reader drops what it cached: see SubgraphReadCache). */
  onLost(listener: () => void): void {
    this.lostListeners.push(listener);
  }

  /** Called whenever the connection is (again) ready. */
  onBack(listener: () => void): void {
    this.backListeners.push(listener);
  }

  /** The subgraph's generation; null while no writer has set one. Rejects when Redis does not answer. */
  current(subgraph: string): Promise<string | null> {
    return this.redis.get(generationKey(subgraph));
  }

  /** Bumps the subgraph's generation. Rejects when Redis does not answer. */
  async bump(subgraph: string): Promise<void> {
    // 2^48 - 1: INCR has room for 2^63 beyond it.
    await this.redis.bumpGeneration(generationKey(subgraph), String(randomInt(1, 2 ** 48 - 1)));
  }

  async close(): Promise<void> {
    this.lostListeners.length = 0;
    await closeRedis(this.redis);
  }
}

/** One subgraph query as the executor is about to send it (a mutation is never looked up). */
export interface SubgraphRead {
  subgraph: string;
  /** The JSON body posted to the subgraph (query, variables, operation name). */
  body: string;
  /** The `Authorization` forwarded to the subgraph (an API key arrives here already exchanged for a JWT). */
  authorization: string | undefined;
  /** The facade's own operations may ask for larger pages than GraphQL clients: their answers are kept apart. */
  facade: boolean;
}

/** A cache hit (`body`), or a miss whose answer may be kept with `keep`. */
export interface CachedRead {
  body: string | undefined;
  /** The subgraph's generation read before this look-up: fetches may be shared only between reads of the same one. */
  generation: string;
  /** Keeps the subgraph's raw answer; call only for a 2xx JSON answer without `errors`. */
  keep(body: string): void;
}

export interface SubgraphReadCache {
  /** undefined: not cacheable (an invalid credential, the generation unknown): fetch as usual. */
  lookup(read: SubgraphRead): Promise<CachedRead | undefined>;
  close(): Promise<void>;
}

export interface ReadCacheOptions {
  redisUrl: string;
  /** Verifies the caller's bearer token (the cache key holds its principal, never the token). */
  jwtSecret: string;
  maxEntries: number;
  maxBytes: number;
  ttlMs: number;
  commandTimeoutMs: number;
  logger: Logger;
}

interface Entry {
  generation: string;
  body: string;
}

type LookupResult = 'hit' | 'miss' | 'stale_miss' | 'bypass';

class RedisReadCache implements SubgraphReadCache {
  private readonly entries: LRUCache<string, Entry>;
  private readonly verifier: AccessTokenVerifier;
  /** Incremented whenever Redis fails: a fetch that read its generation before that keeps nothing. */
  private resets = 0;

  constructor(
    private readonly generations: RedisGenerations,
    options: ReadCacheOptions,
  ) {
    this.entries = new LRUCache<string, Entry>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      // UTF-16 code units, close enough to bytes for a bound.
      sizeCalculation: (entry, key) => key.length + entry.body.length + 64,
      ttl: options.ttlMs,
    });
    this.verifier = new AccessTokenVerifier(options.jwtSecret);
    // Nothing read before an outage may serve after it: a write during the outage could not bump its generation.
    generations.onLost(() => this.reset());
  }

  async lookup(read: SubgraphRead): Promise<CachedRead | undefined> {
    const viewer = this.viewerOf(read.authorization);
    if (viewer === undefined) return this.count(read.subgraph, 'bypass');
    const resets = this.resets;
    let generation: string | null;
    try {
      generation = await this.generations.current(read.subgraph);
    } catch {
      this.reset();
      return this.count(read.subgraph, 'bypass');
    }
    // No generation yet: no writer of this subgraph has reached this Redis, so none would invalidate what is kept.
    if (generation === null || resets !== this.resets) return this.count(read.subgraph, 'bypass');
    const key = `${read.subgraph}\n${read.facade ? 'facade' : 'client'}\n${viewer}\n${read.body}`;
    const entry = this.entries.get(key);
    if (entry?.generation === generation) {
      this.count(read.subgraph, 'hit');
      return { body: entry.body, generation, keep: () => undefined };
    }
    this.count(read.subgraph, entry ? 'stale_miss' : 'miss');
    return {
      body: undefined,
      generation,
      keep: (body) => {
        // Kept under the generation read before the fetch: a write that bumped it meanwhile makes this entry stale.
        if (resets === this.resets) this.entries.set(key, { generation, body });
      },
    };
  }

  async close(): Promise<void> {
    this.entries.clear();
    await this.generations.close();
  }

  /**
   * Who is asking, as far as any subgraph can tell (the principal it builds from the token): kind, user id, username,
   * role and scopes. Two callers share entries only when all of these are equal. No credential: "anonymous"; a
   * credential that does not verify: undefined (not cached; the subgraph decides what it gets).
   */
  private viewerOf(authorization: string | undefined): string | undefined {
    try {
      const token = bearerTokenFrom(authorization);
      if (token === null) return 'anonymous';
      const claims = this.verifier.tryVerify(token);
      return claims && JSON.stringify([claims.kind, claims.uid, claims.sub, claims.role, claims.scopes]);
    } catch {
      return undefined;
    }
  }

  private reset(): void {
    this.resets += 1;
    if (this.entries.size > 0) {
      this.entries.clear();
      if (metricsRecording()) readCacheResets.inc();
    }
  }

  private count(subgraph: string, result: LookupResult): undefined {
    if (metricsRecording()) readCacheLookups.inc({ subgraph, result });
    return undefined;
  }
}

/** READ_CACHE=on with REDIS_URL: the cache; otherwise undefined (every read goes to its subgraph). */
export function createSubgraphReadCache(
  options: Omit<ReadCacheOptions, 'redisUrl'> & { enabled: boolean; redisUrl: string | undefined },
): SubgraphReadCache | undefined {
  if (!options.enabled || !options.redisUrl) return undefined;
  const generations = new RedisGenerations({
    redisUrl: options.redisUrl,
    commandTimeoutMs: options.commandTimeoutMs,
    logger: options.logger,
    purpose: 'read cache',
    fallback: 'reads go to the subgraphs uncached',
  });
  return new RedisReadCache(generations, { ...options, redisUrl: options.redisUrl });
}
