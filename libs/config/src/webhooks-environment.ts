/** What both processes of the events service (the `events` subgraph and the `deliveries` worker) read alike. */
import { z } from 'zod';
import { booleanFlag } from './common-environment';
import { redisUrlSchema } from './redis-connection';

/**
 * What both processes of the events service read besides the MongoDB settings (mongoEnvironment): their database, the
 * delivery queue, how webhook secrets are sealed, and the egress policy (the worker sends by it, registration refuses
 * an IP-literal endpoint it would refuse).
 */
export const webhooksEnvironment = z.object({
  MONGO_DB: z.string().min(1).default('api_events'),
  /** The delivery queue (BullMQ). */
  REDIS_URL: redisUrlSchema.default('redis://127.0.0.1:6379'),
  /** Seals webhook signing secrets at rest: production: required, >= 32 bytes; development: derived from JWT_SECRET. */
  WEBHOOK_SECRETS_KEY: z.string().optional(),
  /** Earlier sealing keys, comma-separated: still opened (and re-sealed under WEBHOOK_SECRETS_KEY), never sealed with. */
  WEBHOOK_SECRETS_KEY_ACCEPTED: z.string().optional(),
  /** Key prefix of the delivery queue in Redis. */
  WEBHOOK_QUEUE_PREFIX: z.string().min(1).default('api-platform'),
  /** Development: allow endpoints on loopback (npm start turns it on); every other inside address stays refused. */
  WEBHOOK_ALLOW_LOOPBACK: booleanFlag(false),
  /**
   * `public` (default): endpoints on public addresses (and loopback when allowed). `loopback`: loopback only, and no
   * name looked up but `localhost`: not even a DNS query leaves the machine (the test kit's systems, sandboxes).
   */
  WEBHOOK_EGRESS: z.enum(['public', 'loopback']).default('public'),
  /** Deliveries one owner's webhooks are given per window; the rest are withheld (redeliverable by the owner). */
  WEBHOOK_OWNER_DELIVERY_BUDGET: z.coerce.number().int().min(1).max(10_000_000).default(1_200),
  WEBHOOK_OWNER_BUDGET_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
});
