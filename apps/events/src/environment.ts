/** The events subgraph's settings, parsed once at start. */
import { z } from 'zod';
import {
  commonEnvironment,
  loadServiceEnvironment,
  mongoEnvironment,
  metricsPort,
  port,
  webhooksEnvironment,
  withWebhookSecretsKey,
} from '@platform/config';

const schema = commonEnvironment.extend({
  ...mongoEnvironment.shape,
  ...webhooksEnvironment.shape,
  PORT: port(4005),
  /** Prometheus metrics (`/metrics`) on a listener of their own, never the public port; `off`: none. */
  METRICS_PORT: metricsPort(9405),
  /** How long events are kept (the feed and the audit trail); enforced by the database (a TTL index). */
  EVENT_RETENTION_DAYS: z.coerce.number().min(0.0001).max(3_650).default(30),
  /** How long a rotated-out signing secret keeps signing beside the new one, unless the rotation says otherwise. */
  WEBHOOK_SECRET_OVERLAP_SECONDS: z.coerce.number().int().min(0).max(604_800).default(86_400),
  /** Webhooks one user may have. */
  WEBHOOK_MAX_PER_OWNER: z.coerce.number().int().min(1).max(1_000).default(20),
});

export type EventsEnvironment = ReturnType<typeof loadEventsEnvironment>;

export function loadEventsEnvironment() {
  return withWebhookSecretsKey(loadServiceEnvironment(schema));
}
