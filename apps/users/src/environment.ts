/** The users subgraph's settings, parsed once at start. */
import { z } from 'zod';
import {
  commonEnvironment,
  metricsPort,
  port,
  loadServiceEnvironment,
  mongoEnvironment,
  eventsRelayEnvironment,
  redisUrlSchema,
} from '@platform/config';

const schema = commonEnvironment
  .extend({
    ...eventsRelayEnvironment.shape,
    PORT: port(4001),
    /** Prometheus metrics (`/metrics`) on a listener of their own, never the public port; `off`: none. */
    METRICS_PORT: metricsPort(9401),
    ...mongoEnvironment.shape,
    MONGO_DB: z.string().min(1).default('api_users'),
    /** The read cache's generations (bumped after every write); unset: no reader can cache this subgraph's answers. */
    REDIS_URL: redisUrlSchema.optional(),
    AUTH_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4003/graphql'),
    ITEMS_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4002/graphql'),
    POSTS_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4004/graphql'),
    BOOTSTRAP_ADMIN_USERNAME: z
      .string()
      .min(3)
      .max(50)
      .regex(/^[A-Za-z0-9_.-]+$/)
      .optional(),
    BOOTSTRAP_ADMIN_PASSWORD: z.string().min(8).max(128).optional(),
    BOOTSTRAP_ADMIN_EMAIL: z.email().optional(),
  })
  .refine(
    (env) => (env.BOOTSTRAP_ADMIN_USERNAME === undefined) === (env.BOOTSTRAP_ADMIN_PASSWORD === undefined),
    {
      message: 'BOOTSTRAP_ADMIN_USERNAME and BOOTSTRAP_ADMIN_PASSWORD are set together or not at all',
      path: ['BOOTSTRAP_ADMIN_PASSWORD'],
    },
  );

export type UsersEnvironment = ReturnType<typeof loadServiceEnvironment<typeof schema>>;

export function loadUsersEnvironment(): UsersEnvironment {
  return loadServiceEnvironment(schema);
}
