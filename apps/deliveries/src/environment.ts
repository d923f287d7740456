/** The delivery worker's settings, parsed once at start. */
import { z } from 'zod';
import {
  commonEnvironment,
  loadServiceEnvironment,
  metricsPort,
  mongoEnvironment,
  port,
  webhooksEnvironment,
  withWebhookSecretsKey,
} from '@platform/config';
import { DEFAULT_RETRY_SCHEDULE, retrySchedule } from '@platform/events';

const schema = commonEnvironment.extend({
  ...mongoEnvironment.shape,
  ...webhooksEnvironment.shape,
  /** Health (`/healthz`, `/readyz`) only: the worker serves no API. */
  PORT: port(4006),
  METRICS_PORT: metricsPort(9406),
  /** Where the owners' accounts are read at each delivery. */
  USERS_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4001/graphql'),
  /** Seconds to wait after each failed try, comma-separated; after the last one the delivery fails for good. */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default(DEFAULT_RETRY_SCHEDULE)
    .refine((value) => {
      try {
        retrySchedule(value);
        return true;
      } catch {
        return false;
      }
    }, 'a comma-separated list of positive numbers of seconds'),
  /**
   * The oldest a webhook owner's account, kept under the users' generations, may serve a try (it bounds only a write
   * whose generation bump could not reach Redis, as TOKEN_STATUS_CACHE_TTL_MS does for tokens); 0: every try asks.
   */
  WEBHOOK_OWNER_CACHE_TTL_MS: z.coerce.number().int().min(0).max(10_000).default(2_000),
  /** The longest one attempt may take, connecting included. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** The most of an endpoint's answer read (the rest is dropped; nothing of it is kept). */
  WEBHOOK_MAX_RESPONSE_BYTES: z.coerce.number().int().min(0).max(10_485_760).default(65_536),
  /** Attempts one worker runs at once. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(16),
  /** How often due deliveries are queued again from the database (what a lost Redis forgot). */
  WEBHOOK_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
});

export type DeliveriesEnvironment = ReturnType<typeof loadDeliveriesEnvironment>;

export function loadDeliveriesEnvironment() {
  const env = withWebhookSecretsKey(loadServiceEnvironment(schema));
  return { ...env, schedule: retrySchedule(env.WEBHOOK_RETRY_SCHEDULE) };
}
