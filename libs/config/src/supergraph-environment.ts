/**
 * Settings of whatever executes supergraph operations: the gateway process, and the REST facade when it embeds the
 * gateway (GATEWAY_MODE=embedded). One definition, so both read the same names with the same defaults.
 */
import { z } from 'zod';
import { booleanFlag, commonEnvironment } from './common-environment';

export const supergraphEnvironment = z.object({
  USERS_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4001/graphql'),
  ITEMS_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4002/graphql'),
  AUTH_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4003/graphql'),
  POSTS_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4004/graphql'),
  EVENTS_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4005/graphql'),
  /** The supergraph composed at build time (tools/build.mjs); defaults to the file beside the bundle. */
  SUPERGRAPH_PATH: z.string().optional(),
  SUBGRAPH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  /**
   * How long a write step a subgraph sent before its deadline (SUBGRAPH_TIMEOUT_MS) may take to commit or abort; a
   * mutation is waited for this much longer than a read (ADR 0020).
   */
  WRITE_COMMIT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3_000),
  /** How long a verified API key is reused without asking auth again: also the longest a revoked key keeps working. */
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(10_000),
  API_KEY_CACHE_MAX_ENTRIES: z.coerce.number().int().min(1).default(10_000),
  /**
   * How long the account state behind a bearer token is reused: also the longest the token of a deleted or deactivated
   * user, or one issued before a password reset or role change, keeps working.
   */
  TOKEN_STATUS_CACHE_TTL_MS: z.coerce.number().int().min(0).max(10_000).default(2_000),
  /**
   * The read cache of subgraph query answers (docs/decisions/0017-read-cache.md): `on` needs REDIS_URL (generations
   * shared with the subgraphs); `off`, or no REDIS_URL, reads every answer from its subgraph.
   */
  READ_CACHE: booleanFlag(true),
  READ_CACHE_MAX_ENTRIES: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /** Bytes of cached answers (keys included) this process keeps at most. */
  READ_CACHE_MAX_BYTES: z.coerce.number().int().min(1_024).default(33_554_432),
  /**
   * The oldest an entry may serve. Invalidation is exact while a writing subgraph reaches Redis; this bounds a stale
   * read only when a subgraph wrote but could not bump its generation (e.g. Redis reachable from the gateway only).
   */
  READ_CACHE_TTL_MS: z.coerce.number().int().min(1).max(3_600_000).default(5_000),
  /**
   * Identical subgraph reads in flight at once (same subgraph, body and credentials, and the same read-cache
   * generation) share one fetch; `off` sends each. Works with the read cache only (READ_CACHE on, REDIS_URL set): a
   * read may share only a fetch of its generation. Part of the "every cache and deduplication off" configuration.
   */
  SUBGRAPH_DEDUP: booleanFlag(true),
});

export type SupergraphEnvironment = z.infer<typeof supergraphEnvironment>;

/** The subgraph name (as in the supergraph) -> URL map of a parsed environment. */
export const subgraphUrlsOf = (env: SupergraphEnvironment): Record<string, string> => ({
  users: env.USERS_SUBGRAPH_URL,
  items: env.ITEMS_SUBGRAPH_URL,
  auth: env.AUTH_SUBGRAPH_URL,
  posts: env.POSTS_SUBGRAPH_URL,
  events: env.EVENTS_SUBGRAPH_URL,
});

/**
 * What the gateway and the REST facade start from: the common settings and the supergraph's (each then adds its own,
 * PORT and METRICS_PORT included, in its environment.ts where the deployment tests and the launcher read them).
 */
export const supergraphServiceEnvironment = commonEnvironment.extend(supergraphEnvironment.shape);
