/** What both processes of the events service (the `events` subgraph and the `deliveries` worker) read alike. */
import { z } from 'zod';
import { redisUrlSchema } from './redis-connection';

/**
 * What both processes of the events service read besides the MongoDB settings (mongoEnvironment): their database, the
 * delivery queue, and how webhook secrets are sealed.
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
});
