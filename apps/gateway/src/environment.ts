/** The gateway's settings, parsed once at start. */
import { z } from 'zod';
import {
  booleanFlag,
  compressionMinBytes,
  loadServiceEnvironment,
  metricsPort,
  port,
  redisUrlSchema,
  supergraphServiceEnvironment,
} from '@platform/config';

const schema = supergraphServiceEnvironment
  .extend({
    PORT: port(4000),
    /** Prometheus metrics (`/metrics`) on a listener of their own, never the public port; `off`: none. */
    METRICS_PORT: metricsPort(9400),
    GRAPHQL_INTROSPECTION: booleanFlag(true),
    /** Rate limits for direct GraphQL clients (the REST facade's calls are exempt: it limits its own callers). */
    REDIS_URL: redisUrlSchema.optional(),
    RATE_LIMIT_POINTS: z.coerce.number().int().min(1).default(100),
    RATE_LIMIT_WINDOW: z.coerce.number().int().min(1).default(60),
    RATE_LIMIT_FAIL_MODE: z.enum(['open', 'closed']).default('open'),
    REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(5).max(5_000).default(80),
    TRUST_PROXY: z.string().default('false'),
    /** Answers of at least this many bytes are compressed (gzip or Brotli, per Accept-Encoding); `off`: none. */
    COMPRESSION_MIN_BYTES: compressionMinBytes(1024),
    CORS_ORIGINS: z.string().default(''),
    REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
    /** The GraphQL IDE (apps/gateway/src/ide): `auto` = on in development, off in production. */
    GRAPHIQL: z.enum(['auto', 'on', 'off']).default('auto'),
    /** Production with GRAPHIQL=on: the HTTP Basic password of /graphiql/ (any user name). */
    GRAPHIQL_PASSWORD: z.string().min(16).max(256).optional(),
    /**
     * APQ registrations in Redis (REDIS_URL; without it, each process's own in-memory cache), per TTL window: at most
     * APQ_MAX_ENTRIES and APQ_MAX_BYTES of documents across the replicas, APQ_CLIENT_MAX_BYTES per client. Redis holds at
     * most two windows: 2 x (APQ_MAX_BYTES + APQ_MAX_ENTRIES x ~400 bytes of keys and counters): ~42 MB by default.
     */
    APQ_CACHE_TTL_SECONDS: z.coerce.number().int().min(1).max(2_592_000).default(86_400),
    APQ_MAX_DOCUMENT_BYTES: z.coerce.number().int().min(256).max(1_048_576).default(32_768),
    APQ_MAX_ENTRIES: z.coerce.number().int().min(1).default(10_000),
    APQ_MAX_BYTES: z.coerce.number().int().min(1_024).default(16_777_216),
    APQ_CLIENT_MAX_BYTES: z.coerce.number().int().min(256).default(262_144),
    /** Only the operations of the manifest run (by id, or their exact document); nothing can be registered. */
    TRUSTED_DOCUMENTS: booleanFlag(false),
    /** The manifest (Apollo persisted-query manifest JSON); default: trusted-documents.json beside the bundle. */
    TRUSTED_DOCUMENTS_PATH: z.string().optional(),
  })
  .refine(
    (env) => env.NODE_ENV !== 'production' || env.GRAPHIQL !== 'on' || env.GRAPHIQL_PASSWORD !== undefined,
    {
      message: 'GRAPHIQL=on in production needs GRAPHIQL_PASSWORD (at least 16 characters)',
      path: ['GRAPHIQL_PASSWORD'],
    },
  );

export type GatewayEnvironment = ReturnType<typeof loadServiceEnvironment<typeof schema>>;

export function loadGatewayEnvironment(): GatewayEnvironment {
  // Apollo's gateway reports usage metrics to Apollo's servers unless this is set; nothing here may call out.
  process.env['APOLLO_TELEMETRY_DISABLED'] = 'true';
  return loadServiceEnvironment(schema);
}
