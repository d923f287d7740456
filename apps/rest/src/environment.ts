/** The REST facade's settings (README.md#configuration), parsed once at start. */
import { z } from 'zod';
import { ERROR_FORMATS } from '@platform/errors';
import type { KeyRing } from '@platform/auth';
import {
  booleanFlag,
  compressionMinBytes,
  loadServiceEnvironment,
  metricsPort,
  port,
  redisUrlSchema,
  resolveIdempotencySecret,
  supergraphServiceEnvironment,
} from '@platform/config';

// The supergraph settings (subgraph URLs, SUPERGRAPH_PATH, SUBGRAPH_TIMEOUT_MS, API_KEY_CACHE_*) are read with
// GATEWAY_MODE=embedded (the default); GATEWAY_URL and GATEWAY_TIMEOUT_MS only with `remote`.
const schema = supergraphServiceEnvironment.extend({
  PORT: port(3000),
  /** Prometheus metrics (`/metrics`) on a listener of their own, never the public port; `off`: none. */
  METRICS_PORT: metricsPort(9300),
  /**
   * `embedded` (default): the facade runs the gateway's executor in-process and calls the subgraphs itself, one process
   * and one HTTP hop fewer on every REST call (ADR 0007: 2.2x the remote facade's reads in the bench). `remote`: every
   * operation goes over HTTP to the gateway process at GATEWAY_URL.
   */
  GATEWAY_MODE: z.enum(['remote', 'embedded']).default('embedded'),
  GATEWAY_URL: z.string().url().default('http://127.0.0.1:4000/graphql'),
  GATEWAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  ERROR_FORMAT: z.enum(ERROR_FORMATS).default('detail'),
  VALIDATION_STATUS: z
    .enum(['400', '422'])
    .default('422')
    .transform((v) => Number(v) as 400 | 422),
  LOGIN_FAILURE_STATUS: z
    .enum(['400', '401'])
    .default('401')
    .transform((v) => Number(v) as 400 | 401),
  USERS_LIST_STYLE: z.enum(['auto', 'offset', 'page']).default('auto'),
  REDIS_URL: redisUrlSchema.optional(),
  RATE_LIMIT_POINTS: z.coerce.number().int().min(1).default(100),
  RATE_LIMIT_WINDOW: z.coerce.number().int().min(1).default(60),
  /** Redis unreachable: `open` = each instance limits on its own; `closed` = limited requests get 503. */
  RATE_LIMIT_FAIL_MODE: z.enum(['open', 'closed']).default('open'),
  /** Redis unreachable for an `Idempotency-Key` POST: `open` runs it without the guarantee (and says so), `closed` 503s. */
  IDEMPOTENCY_FAIL_MODE: z.enum(['open', 'closed']).default('open'),
  /**
   * What names and seals `Idempotency-Key` records in Redis (>= 32 bytes); unset: the JWT key ring. During a rotation
   * IDEMPOTENCY_SECRET_ACCEPTED (comma-separated) still finds and opens the records sealed under earlier values.
   */
  IDEMPOTENCY_SECRET: z.string().optional(),
  IDEMPOTENCY_SECRET_ACCEPTED: z.string().optional(),
  /** `true`: PUT/PATCH/DELETE of a versioned resource without `If-Match` are refused with 428. */
  REQUIRE_IF_MATCH: booleanFlag(false),
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(5).max(5_000).default(80),
  /** Node's requestTimeout: the whole request must arrive within this. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
  API_KEY_PROTECTION: booleanFlag(true),
  CORS_ORIGINS: z.string().default(''),
  TRUST_PROXY: z.string().default('false'),
  /** Answers of at least this many bytes are compressed (gzip or Brotli, per Accept-Encoding); `off`: none. */
  COMPRESSION_MIN_BYTES: compressionMinBytes(1024),
});

export type RestEnvironment = ReturnType<typeof loadServiceEnvironment<typeof schema>> & {
  /** IDEMPOTENCY_SECRET's key ring (the JWT ring when unset). */
  idempotencySecret: KeyRing;
};

export function loadRestEnvironment(source?: Record<string, string | undefined>): RestEnvironment {
  const env = loadServiceEnvironment(schema, source ? { source, exitOnError: false } : {});
  // Apollo's gateway reports usage metrics to Apollo's servers unless this is set; nothing here may call out.
  if (env.GATEWAY_MODE === 'embedded' && !source) process.env['APOLLO_TELEMETRY_DISABLED'] = 'true';
  return { ...env, idempotencySecret: resolveIdempotencySecret(env, env.jwtSecret) };
}
