/** The auth subgraph's settings, parsed once at start. */
import { z } from 'zod';
import { API_KEY_MAX_LENGTH, isWellFormedApiKey } from '@platform/auth';
import {
  commonEnvironment,
  metricsPort,
  port,
  loadServiceEnvironment,
  mongoEnvironment,
  eventsRelayEnvironment,
  redisUrlSchema,
} from '@platform/config';

const schema = commonEnvironment.extend({
  ...eventsRelayEnvironment.shape,
  PORT: port(4003),
  /** Prometheus metrics (`/metrics`) on a listener of their own, never the public port; `off`: none. */
  METRICS_PORT: metricsPort(9403),
  ...mongoEnvironment.shape,
  MONGO_DB: z.string().min(1).default('api_auth'),
  USERS_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4001/graphql'),
  /** Refresh-token lifetime in seconds (default 14 days); each rotation issues a token with a fresh lifetime. */
  REFRESH_TOKEN_TTL: z.coerce.number().int().min(60).max(31_536_000).default(1_209_600),
  /** The login throttle (apps/auth/src/domain/login-throttle.ts): attempts per client IP + username and window. */
  REDIS_URL: redisUrlSchema.optional(),
  RATE_LIMIT_WINDOW: z.coerce.number().int().min(1).default(60),
  LOGIN_RATE_LIMIT_POINTS: z.coerce.number().int().min(1).default(10),
  LOGIN_RATE_LIMIT_BLOCK_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  RATE_LIMIT_FAIL_MODE: z.enum(['open', 'closed']).default('open'),
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(5).max(5_000).default(80),
  /**
   * A key valid with every `*:read` scope (docs/interface.md#api-keys); unset or empty: none. Held to the API-key
   * alphabet the facade and gateway check first (visible ASCII, at most 512), so the configured key is never one they
   * would refuse.
   */
  BOOTSTRAP_API_KEY: z
    .string()
    .refine((v) => v === '' || isWellFormedApiKey(v), {
      message: `at most ${API_KEY_MAX_LENGTH} visible ASCII characters (0x21-0x7E: no spaces, control or non-ASCII characters)`,
    })
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
});

export type AuthEnvironment = ReturnType<typeof loadServiceEnvironment<typeof schema>>;

export function loadAuthEnvironment(): AuthEnvironment {
  return loadServiceEnvironment(schema);
}
