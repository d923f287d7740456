/** Environment pieces every process shares: runtime mode, logging, bind address and the token settings. */
import { z } from 'zod';

export const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
    .optional()
    .transform((value) => (value === undefined ? fallback : ['true', '1', 'yes', 'on'].includes(value)));

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** METRICS_PORT: the metrics listener's port (0: any free one), or `off`: no listener and nothing recorded. */
export const metricsPort = (fallback: number) =>
  z
    .string()
    .default(String(fallback))
    .transform((value) => (value === 'off' ? undefined : value))
    .pipe(z.coerce.number<string>().int().min(0).max(65535).optional());

/** COMPRESSION_MIN_BYTES: answers of at least this many bytes are compressed (0: all), or `off`: none. */
export const compressionMinBytes = (fallback: number) =>
  z
    .string()
    .default(String(fallback))
    .transform((value) => (value === 'off' ? undefined : value))
    .pipe(z.coerce.number<string>().int().min(0).max(16_777_216).optional());

/** Loopback by default: nothing listens beyond 127.0.0.1 unless a deployment says so (containers set 0.0.0.0). */
export const host = () => z.string().min(1).default('127.0.0.1');

export const commonEnvironment = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HOST: host(),
  JWT_SECRET: z.string().optional(),
  /**
   * Other JWT keys still verified (comma-separated, each >= 32 bytes): during a rotation the coming key (step 1) or the
   * retiring one (step 2), docs/decisions/0021-key-rings-and-redis-failover.md. Tokens name their key (`kid`).
   */
  JWT_SECRET_ACCEPTED: z.string().optional(),
  DATA_DIR: z.string().default('.data'),
  ACCESS_TOKEN_TTL: z.coerce.number().int().min(30).max(86_400).default(1800),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  /** Keep serving with /readyz false this long after SIGTERM (where no preStop hook delays the signal). */
  SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  /**
   * What the gateway (and the facade's embedded gateway, and one subgraph calling another) presents to a subgraph; a
   * subgraph refuses every request without it. Production: required, >= 32 bytes. Development: derived from JWT_SECRET.
   */
  SUBGRAPH_SECRET: z.string().optional(),
  /** Other subgraph secrets a subgraph lets in during a rotation (comma-separated, each >= 32 bytes); callers send SUBGRAPH_SECRET. */
  SUBGRAPH_SECRET_ACCEPTED: z.string().optional(),
  /** Per operation, at the gateway and at every subgraph (libs/service/src/graphql-limits.ts). */
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).max(100).default(10),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).max(1_000).default(30),
  GRAPHQL_MAX_DIRECTIVES: z.coerce.number().int().min(0).max(1_000).default(20),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(1).default(25_000),
  /** The largest request body (413 beyond). */
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
});

export type CommonEnvironment = z.infer<typeof commonEnvironment>;

export const isProduction = (env: { NODE_ENV: string }): boolean => env.NODE_ENV === 'production';

/** The operation limits of a parsed environment (gateway and subgraphs read the same names). */
export const graphqlLimitsOf = (env: CommonEnvironment) => ({
  maxDepth: env.GRAPHQL_MAX_DEPTH,
  maxAliases: env.GRAPHQL_MAX_ALIASES,
  maxDirectives: env.GRAPHQL_MAX_DIRECTIVES,
  maxCost: env.GRAPHQL_MAX_COST,
});
