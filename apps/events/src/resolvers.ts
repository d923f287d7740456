/**
 * Resolvers of the events subgraph: the feed (Query.events, Query.event), webhooks and their deliveries, and the two
 * internal fields the services' relays call. The stored documents map to the GraphQL types here.
 */
import { GraphQLJSON } from 'graphql-scalars';
import { MAX_FACADE_FIRST } from '@platform/listing';
import { webhookScopes, type StoredEvent, type WebhookDocument } from '@platform/webhooks';
import type { EventsContext } from './context';
import type { EventFilterInput } from './domain/event-feed';
import type { DeliveryWithAttempts, WebhookInput } from './domain/webhook-service';

type Args = Record<string, unknown>;

/** The REST facade's fixed documents may page by up to REST's `limit` of 1000, like every other listing. */
const maxFirst = (context: EventsContext) => (context.facadeCall ? MAX_FACADE_FIRST : 100);

export const resolvers = {
  JSON: GraphQLJSON,
  Query: {
    events: (_: unknown, args: Args, context: EventsContext) =>
      context.services.feed.page(
        context,
        {
          first: args['first'] as number | null,
          after: args['after'] as string | null,
          filter: args['filter'] as EventFilterInput | null,
        },
        maxFirst(context),
      ),
    event: (_: unknown, args: Args, context: EventsContext) =>
      context.services.feed.one(context, String(args['id'])),
    webhooks: (_: unknown, _args: Args, context: EventsContext) => context.services.webhooks.list(context),
    webhook: (_: unknown, args: Args, context: EventsContext) =>
      context.services.webhooks.get(context, args['id']),
    webhookDeliveries: (_: unknown, args: Args, context: EventsContext) =>
      context.services.webhooks.deliveriesOf(
        context,
        args['webhookId'],
        { first: args['first'] as number | null, after: args['after'] as string | null },
        maxFirst(context),
      ),
    _deletionOf: (_: unknown, args: Args, context: EventsContext) =>
      context.services.feed.deletionOf(context, String(args['subject'])),
  },
  Mutation: {
    createWebhook: (_: unknown, args: Args, context: EventsContext) =>
      context.services.webhooks.create(context, args['input'] as WebhookInput),
    updateWebhook: (_: unknown, args: Args, context: EventsContext) =>
      context.services.webhooks.update(
        context,
        args['id'],
        args['input'] as WebhookInput,
        args['expectedVersion'] as number | null | undefined,
      ),
    deleteWebhook: (_: unknown, args: Args, context: EventsContext) =>
      context.services.webhooks.delete(
        context,
        args['id'],
        args['expectedVersion'] as number | null | undefined,
      ),
    rotateWebhookSecret: (_: unknown, args: Args, context: EventsContext) =>
      context.services.webhooks.rotate(
        context,
        args['id'],
        args['overlapSeconds'] as number | null | undefined,
      ),
    pingWebhook: (_: unknown, args: Args, context: EventsContext) =>
      context.services.webhooks.ping(context, args['id']),
    redeliverWebhookDelivery: (_: unknown, args: Args, context: EventsContext) =>
      context.services.webhooks.redeliver(context, args['webhookId'], String(args['deliveryId'])),
    _purgeAccount: (_: unknown, args: Args, context: EventsContext) =>
      context.services.accounts.purge(context, args['userId']),
    _recordEvents: (_: unknown, args: Args, context: EventsContext) =>
      context.services.feed.record(context, args['events'] as unknown[]),
  },
  Event: {
    id: (event: StoredEvent) => event._id,
    actor: (event: StoredEvent) => ({
      type: event.actor.type,
      id: event.actor.id === null ? null : String(event.actor.id),
    }),
    resource: (event: StoredEvent) => ({ type: event.resource.type, id: String(event.resource.id) }),
  },
  Webhook: {
    id: (webhook: WebhookDocument) => String(webhook._id),
    ownerId: (webhook: WebhookDocument) => String(webhook.ownerId),
    scopes: (webhook: WebhookDocument) => webhookScopes(webhook),
    version: (webhook: WebhookDocument) => webhook.version ?? 0,
    previousSecretExpiresAt: (webhook: WebhookDocument) => {
      const now = new Date();
      const live = webhook.secrets.filter((s) => s.expiresAt !== null && s.expiresAt > now);
      return live.length === 0
        ? null
        : live.map((s) => s.expiresAt!).sort((a, b) => b.getTime() - a.getTime())[0];
    },
  },
  WebhookDelivery: {
    id: (delivery: DeliveryWithAttempts) => delivery._id,
    webhookId: (delivery: DeliveryWithAttempts) => String(delivery.webhookId),
    status: (delivery: DeliveryWithAttempts) => delivery.state,
    attemptCount: (delivery: DeliveryWithAttempts) => delivery.attempts,
    nextAttemptAt: (delivery: DeliveryWithAttempts) =>
      delivery.state === 'pending' ? delivery.nextAttemptAt : null,
    attempts: (delivery: DeliveryWithAttempts) =>
      delivery.attemptLog.map((a) => ({
        number: a.n,
        at: a.startedAt,
        statusCode: a.statusCode,
        durationMs: a.durationMs,
        error: a.error,
      })),
  },
};
