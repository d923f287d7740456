/**
 * The read cache of whatever executes supergraph operations (the gateway process, the facade's embedded executor),
 * built from the supergraph settings (READ_CACHE*, REDIS_URL): docs/decisions/0017-read-cache.md.
 */
import type { ResolvedSecrets, SupergraphEnvironment } from '@platform/config';
import type { Logger } from '@platform/logging';
import { createSubgraphReadCache, type SubgraphReadCache } from '@platform/read-cache';

export function createReadCache(
  env: SupergraphEnvironment & ResolvedSecrets & { REDIS_URL?: string | undefined; REDIS_COMMAND_TIMEOUT_MS: number },
  logger: Logger,
): SubgraphReadCache | undefined {
  const cache = createSubgraphReadCache({
    enabled: env.READ_CACHE,
    redisUrl: env.REDIS_URL,
    jwtSecret: env.jwtSecret,
    maxEntries: env.READ_CACHE_MAX_ENTRIES,
    maxBytes: env.READ_CACHE_MAX_BYTES,
    ttlMs: env.READ_CACHE_TTL_MS,
    // On every read's path, so short; but not so short that a busy event loop (the reply read after the timer fired)
    // passes for a Redis failure, which drops every entry.
    commandTimeoutMs: Math.max(env.REDIS_COMMAND_TIMEOUT_MS, 250),
    logger,
  });
  logger.info(
    { readCache: cache ? 'on' : 'off', ...(cache ? { maxEntries: env.READ_CACHE_MAX_ENTRIES, ttlMs: env.READ_CACHE_TTL_MS } : {}) },
    cache ? 'read cache on' : env.READ_CACHE ? 'read cache off: no REDIS_URL' : 'read cache off',
  );
  return cache;
}
