/** Per-request context of the events subgraph: caller, request id, logger, services. */
import type { BaseSubgraphContext } from '@platform/graphql-server';
import type { EventFeed } from './domain/event-feed';
import type { WebhookService } from './domain/webhook-service';
import type { AccountDeletion } from './domain/account-deletion';

export interface EventsContext extends BaseSubgraphContext {
  services: { feed: EventFeed; webhooks: WebhookService; accounts: AccountDeletion };
}
