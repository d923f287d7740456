/** The posts subgraph's settings, parsed once at start. */
import { z } from 'zod';
import {
  commonEnvironment,
  loadServiceEnvironment,
  metricsPort,
  port,
  mongoEnvironment,
  eventsRelayEnvironment,
  redisUrlSchema,
} from '@platform/config';

const schema = commonEnvironment.extend({
  ...eventsRelayEnvironment.shape,
  PORT: port(4004),
  /** Prometheus metrics (`/metrics`) on a listener of their own, never the public port; `off`: none. */
  METRICS_PORT: metricsPort(9404),
  ...mongoEnvironment.shape,
  MONGO_DB: z.string().min(1).default('api_posts'),
  /** The read cache's generations (bumped after every write); unset: no reader can cache this subgraph's answers. */
  REDIS_URL: redisUrlSchema.optional(),
});

export type PostsEnvironment = ReturnType<typeof loadPostsEnvironment>;

export const loadPostsEnvironment = () => loadServiceEnvironment(schema);
