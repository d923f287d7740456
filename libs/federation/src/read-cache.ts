/**
 * The generations and the read cache of whatever executes supergraph operations (the gateway process, the facade),
 * built from the supergraph settings (READ_CACHE*, REDIS_URL): docs/decisions/0017-read-cache.md and 0019.
 */
import type { ResolvedSecrets, SupergraphEnvironment } from '@platform/config';
import type { Logger } from '@platform/logging';
import {
  createSubgraphReadCache,
  GenerationReader,
  RedisGenerations,
  type SubgraphReadCache,
} from '@platform/read-cache';

type GenerationSettings = SupergraphEnvironment &
  ResolvedSecrets & { REDIS_URL?: string | undefined; REDIS_COMMAND_TIMEOUT_MS: number };

/**
 * The process's one connection to the generations (credential checks and read cache share it, and a request reads
 * them once for both); undefined without REDIS_URL: nothing is cached, every credential check asks its subgraph.
 */
export function createGenerationReader(env: GenerationSettings, logger: Logger): GenerationReader | undefined {
  if (!env.REDIS_URL) {
    logger.info('generations off (no REDIS_URL): credential checks ask their subgraph on every request, no read cache');
    return undefined;
  }
  return new GenerationReader(
    new RedisGenerations({
      redisUrl: env.REDIS_URL,
      // On every request's path, so short; but not so short that a busy event loop (the reply read after the timer
      // fired) passes for a Redis failure, which drops every entry.
      commandTimeoutMs: Math.max(env.REDIS_COMMAND_TIMEOUT_MS, 250),
      logger,
      purpose: 'generations',
      fallback: 'reads go to the subgraphs uncached and credential checks ask their subgraph',
    }),
  );
}

export function createReadCache(
  env: GenerationSettings,
  logger: Logger,
  reader: GenerationReader | undefined,
): SubgraphReadCache | undefined {
  const cache = createSubgraphReadCache({
    enabled: env.READ_CACHE,
    reader,
    maxEntries: env.READ_CACHE_MAX_ENTRIES,
    maxBytes: env.READ_CACHE_MAX_BYTES,
    ttlMs: env.READ_CACHE_TTL_MS,
  });
  logger.info(
    { readCache: cache ? 'on' : 'off', ...(cache ? { maxEntries: env.READ_CACHE_MAX_ENTRIES, ttlMs: env.READ_CACHE_TTL_MS } : {}) },
    cache ? 'read cache on' : env.READ_CACHE ? 'read cache off: no REDIS_URL' : 'read cache off',
  );
  return cache;
}
