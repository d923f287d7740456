/** Assembles the events subgraph from its dependencies; main.ts listens, tests call it in-process. */
import { queueConnection } from '@platform/config';
import { SecretBox } from '@platform/events';
import { startSubgraph, type StartedSubgraph, type SubgraphAppDeps } from '@platform/graphql-server';
import { DeliveryQueue, DeliveryStore, EventFanOut, EventStore, WebhookStore } from '@platform/webhooks';
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

export async function createEventsApp(deps: SubgraphAppDeps, env: EventsEnvironment): Promise<EventsApp> {
  const store = new EventStore(deps.db, Math.round(env.EVENT_RETENTION_DAYS * 86_400));
  await store.ensureRetention();
  const deliveries = new DeliveryStore(deps.db);
  const webhooks = new WebhookStore(deps.db, new SecretBox(env.webhookSecretsKey));
  const queue = new DeliveryQueue(queueConnection(env.REDIS_URL, 'queue'), env.WEBHOOK_QUEUE_PREFIX);
  const fanOut = new EventFanOut(store, webhooks, deliveries, queue, deps.logger);
  const feed = new EventFeed(store, fanOut);
  const service = new WebhookService(webhooks, deliveries, fanOut, {
    production: deps.production,
    overlapSeconds: env.WEBHOOK_SECRET_OVERLAP_SECONDS,
    maxPerOwner: env.WEBHOOK_MAX_PER_OWNER,
  });
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
  const started = await startSubgraph<EventsContext>({
    ...deps,
    typeDefs,
    resolvers,
    services: { feed, webhooks: service, accounts },
  });
  return {
    ...started,
    close: async () => {
      clearInterval(expiry);
      await queue.close();
    },
  };
}
