/** Assembles the events subgraph from its dependencies; main.ts listens, tests call it in-process. */
import { closeRedis, connectRedis, queueConnection } from '@platform/config';
import { SecretBox } from '@platform/events';
import { startSubgraph, type StartedSubgraph, type SubgraphAppDeps } from '@platform/graphql-server';
import { EventRelay } from '@platform/mongo';
import {
  DeliveryQueue,
  DeliveryStore,
  EventFanOut,
  EventStore,
  WebhookStore,
  localTransport,
  ownerDeliveryBudget,
} from '@platform/webhooks';
import typeDefs from './schema.graphql';
import type { EventsContext } from './context';
import type { EventsEnvironment } from './environment';
import { EventFeed } from './domain/event-feed';
import { WebhookService } from './domain/webhook-service';
import { AccountDeletion } from './domain/account-deletion';
import { resolvers } from './resolvers';

export interface EventsApp extends StartedSubgraph<EventsContext> {
  close(): Promise<void>;
}

const RETENTION_SWEEP_MS = 60_000;
/** An account's deletion waits this long for its tries on their way; the longest a try may last (WEBHOOK_TIMEOUT_MS). */
const DELETION_WAIT_MS = 2_000;
const MAX_ATTEMPT_MS = 61_000;
/** How often the secrets an accepted WEBHOOK_SECRETS_KEY sealed are sealed anew (and at start). */
export const RESEAL_PASS_MS = 10 * 60_000;

export async function createEventsApp(deps: SubgraphAppDeps, env: EventsEnvironment): Promise<EventsApp> {
  const store = new EventStore(deps.db, Math.round(env.EVENT_RETENTION_DAYS * 86_400));
  await store.ensureRetention();
  const deliveries = new DeliveryStore(deps.db);
  const webhooks = new WebhookStore(deps.db, new SecretBox(env.webhookSecretsKey));
  const queue = new DeliveryQueue(queueConnection(env.REDIS_URL, 'queue'), env.WEBHOOK_QUEUE_PREFIX);
  const budgetRedis = connectRedis(env.REDIS_URL, 500, deps.logger, {
    purpose: 'webhook delivery budget',
    fallback: 'each process counts the owners’ deliveries on its own',
  });
  const budget = ownerDeliveryBudget({
    redis: budgetRedis,
    points: env.WEBHOOK_OWNER_DELIVERY_BUDGET,
    windowSeconds: env.WEBHOOK_OWNER_BUDGET_WINDOW_SECONDS,
  });
  const fanOut = new EventFanOut(store, webhooks, deliveries, queue, deps.logger, budget);
  const feed = new EventFeed(store, fanOut);
  // The webhook writes' events go through this database's own outbox, published locally (as the worker's are).
  const relay = new EventRelay({
    db: deps.db,
    logger: deps.logger,
    transport: localTransport(fanOut, store),
    sweepAfterMs: 10_000,
  });
  const service = new WebhookService(
    webhooks,
    deliveries,
    fanOut,
    {
      production: deps.production,
      allowLoopback: env.WEBHOOK_ALLOW_LOOPBACK || env.WEBHOOK_EGRESS === 'loopback',
      overlapSeconds: env.WEBHOOK_SECRET_OVERLAP_SECONDS,
      maxPerOwner: env.WEBHOOK_MAX_PER_OWNER,
    },
    relay.outbox,
  );
  const accounts = new AccountDeletion(store, webhooks, deliveries, queue, {
    waitMs: DELETION_WAIT_MS,
    maxAttemptMs: MAX_ATTEMPT_MS,
  });
  // Where the server has no TTL index (FerretDB v1), retention is this service's own sweep, every minute.
  const expire = () =>
    store
      .expire()
      .catch((error: unknown) =>
        deps.logger.warn(
          { err: { message: error instanceof Error ? error.message : String(error) } },
          'event expiry failed',
        ),
      );
  const expiry = store.expiresItself ? setInterval(expire, RETENTION_SWEEP_MS) : undefined;
  expiry?.unref();
  if (expiry) void expire();
  // While the ring holds more than one key, what an accepted key sealed is sealed anew under the current one (at start,
  // then every 10 minutes: a replica of the step before may still seal with its key), so the old key can retire.
  let allCurrent = false;
  const reseal = () =>
    webhooks
      .resealAll()
      .then(({ resealed, due, unreadable }) => {
        if (resealed > 0)
          deps.logger.info(
            { webhooks: resealed },
            'webhook signing secrets sealed anew under WEBHOOK_SECRETS_KEY',
          );
        if (unreadable > 0) {
          deps.logger.warn(
            { webhooks: unreadable },
            'webhooks hold a signing secret no WEBHOOK_SECRETS_KEY opens: their deliveries fail until the secret is rotated',
          );
        }
        if (due === 0 && !allCurrent) {
          deps.logger.info('every readable webhook signing secret is sealed under WEBHOOK_SECRETS_KEY');
        }
        allCurrent = due === 0;
      })
      .catch((error: unknown) =>
        deps.logger.warn(
          { err: { message: error instanceof Error ? error.message : String(error) } },
          'webhook secrets re-seal pass failed; the next one tries again',
        ),
      );
  // With one key there is nothing to re-seal, so no pass reads every webhook.
  const rotating = env.webhookSecretsKey.accepted.length > 1;
  if (rotating) void reseal();
  const resealing = rotating ? setInterval(reseal, RESEAL_PASS_MS) : undefined;
  resealing?.unref();
  const started = await startSubgraph<EventsContext>({
    ...deps,
    typeDefs,
    resolvers,
    services: { feed, webhooks: service, accounts },
  });
  relay.start();
  return {
    ...started,
    close: async () => {
      clearInterval(expiry);
      clearInterval(resealing);
      await relay.close();
      await queue.close();
      await closeRedis(budgetRedis);
    },
  };
}
