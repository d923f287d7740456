/**
 * The event feed (GET /events, newest first, cursor-paginated, filtered by type, resource and time: what the caller
 * may read now; an admin's is the audit trail) and webhooks: create (the signing secret in that response only),
 * list, read, change, delete, rotate the secret with an overlap, ping, the delivery log and one redelivery.
 * Webhooks take a user's access token (an API key reads only); someone else's webhook is 404.
 */
import { z } from 'zod';
import {
  EVENTS_PAGE_SIZE,
  EventPage,
  EventPublic,
  EventsQuery,
  WebhookCreate,
  WebhookDeliveriesQuery,
  WebhookDeliveryPage,
  WebhookDeliveryPublic,
  WebhookPublic,
  WebhookRotate,
  WebhookUpdate,
  WebhookWithSecret,
  sparseFields,
} from '@platform/contracts';
import { notFound } from '@platform/errors';
import { defineRoute, type RouteDefinition } from '../http/route';
import { versionTag } from '../http/conditional';
import { OPERATIONS } from '../gateway/gateway-client';
import type {
  EventFieldsFragment,
  WebhookDeliveryFieldsFragment,
  WebhookFieldsFragment,
} from '../operations/__generated__/operations';
import { idParams, locationOf } from './record-routes';
import { fieldsParameter } from './read-selection';

const {
  CreateWebhook,
  DeleteWebhook,
  GetEvent,
  GetWebhook,
  ListEvents,
  ListWebhookDeliveries,
  ListWebhooks,
  PingWebhook,
  RedeliverWebhookDelivery,
  RotateWebhookSecret,
  UpdateWebhook,
} = OPERATIONS;

export const toEventPublic = (event: EventFieldsFragment) => ({
  id: event.id,
  type: event.type,
  occurred_at: event.occurredAt,
  actor: {
    type: event.actor.type as 'user' | 'api_key' | 'system',
    id: event.actor.id === null ? null : Number(event.actor.id),
  },
  resource: { type: event.resource.type, id: Number(event.resource.id) },
  data: event.data as Record<string, unknown>,
  request_id: event.requestId,
});

const toWebhookPublic = (webhook: WebhookFieldsFragment) => ({
  id: Number(webhook.id),
  url: webhook.url,
  event_types: webhook.eventTypes,
  scopes: webhook.scopes as Array<'users:read' | 'items:read' | 'posts:read'>,
  description: webhook.description,
  status: webhook.status,
  disabled_reason: webhook.disabledReason,
  owner_id: Number(webhook.ownerId),
  previous_secret_expires_at: webhook.previousSecretExpiresAt,
  created_at: webhook.createdAt,
  updated_at: webhook.updatedAt,
});

const toDeliveryPublic = (delivery: WebhookDeliveryFieldsFragment) => ({
  id: delivery.id,
  webhook_id: Number(delivery.webhookId),
  message_id: delivery.messageId,
  event_type: delivery.eventType,
  status: delivery.status,
  attempt_count: delivery.attemptCount,
  next_attempt_at: delivery.nextAttemptAt,
  reason: delivery.reason,
  created_at: delivery.createdAt,
  attempts: delivery.attempts.map((a) => ({
    number: a.number,
    at: a.at,
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    error: a.error,
  })),
});

const WEBHOOK_PATH = '/webhooks/:webhook_id';
const WebhookIdParams = idParams({ webhook_id: 'Webhook' });
const EventIdParams = z.object({ event_id: z.string().max(40).describe('The event id (`evt_...`)') });
const DeliveryParams = WebhookIdParams.extend({
  delivery_id: z.string().min(1).max(80).describe('The delivery id'),
});

/**
 * The event feed's sparse fieldsets (`fields=type,resource`, ADR 0027): top-level names only (an event is a flat
 * record with no declaration, hence no expansion); the feed's operation stays the fixed one and the answer is trimmed.
 */
const EVENT_FIELDS = Object.keys(EventPublic.shape);
const EventsReadQuery = EventsQuery.extend({ fields: fieldsParameter(EVENT_FIELDS) });
const EventSelected = EventPublic.partial()
  .required({ id: true })
  .meta({
    id: 'EventSelected',
    description: 'An event as a read with `fields` answers it: the id always, the other fields only when named.',
  });
const EventSelectedPage = EventPage.extend({ data: z.array(EventSelected).max(EVENTS_PAGE_SIZE.max) }).meta({
  id: 'EventSelectedPage',
  description: 'A page of events, newest first, with the fields `fields` names.',
});
const selectedEvent =
  (fields: ReadonlySet<string> | undefined) =>
  (event: EventFieldsFragment): Record<string, unknown> => {
    const full = toEventPublic(event);
    return fields ? Object.fromEntries(Object.entries(full).filter(([name]) => fields.has(name))) : full;
  };

const OWN_ONLY =
  "Needs a user's access token (an API key cannot manage webhooks); another user's webhook is 404 (admins: every webhook).";

/**
 * A page of a cursor listing (events, deliveries): its records, the next page's token, and a `Link` to the next page
 * (the same query, the cursor replaced).
 */
function page<N, R>(
  request: { originalUrl: string },
  connection: { nodes: N[]; pageInfo: { endCursor: string | null; hasNextPage: boolean } },
  toPublic: (node: N) => R,
  pageSize: number,
) {
  const next = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
  const headers: Record<string, string> = {};
  if (next) {
    const url = new URL(request.originalUrl, 'http://x');
    url.searchParams.set('pageToken', next);
    headers['link'] = `<${url.pathname}${url.search}>; rel="next"`;
  }
  return {
    status: 200,
    body: { data: connection.nodes.map(toPublic), pagination: { nextPageToken: next, pageSize } },
    headers,
  };
}

const webhookResponse = (webhook: WebhookFieldsFragment, version: number | undefined, status = 200) => ({
  status,
  body: toWebhookPublic(webhook),
  headers: { etag: versionTag(webhook.version, version) },
});

const withSecret = (answer: { secret: string; webhook: WebhookFieldsFragment }) => ({
  ...toWebhookPublic(answer.webhook),
  secret: answer.secret,
});

const webhookRoute = <P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  route: Omit<RouteDefinition<P, Q, B>, 'tags' | 'security'>,
): RouteDefinition =>
  defineRoute<P, Q, B>({
    tags: ['webhooks'],
    security: 'bearer',
    ...route,
    description: `${OWN_ONLY} ${route.description ?? ''}`.trim(),
  });

export const eventsRoutes = [
  defineRoute({
    method: 'get',
    path: '/events',
    operationId: 'listEvents',
    summary: 'List events',
    tags: ['events'],
    security: 'bearer-or-api-key',
    description:
      'Events newest first: those about what the caller may read now (the scope of the resource kind; API keys and ' +
      'password resets only to their owner); an admin sees every event (the audit trail). Kept for ' +
      '`EVENT_RETENTION_DAYS` (30 by default). The next page: `pageToken` = `pagination.nextPageToken` (also in `Link`, ' +
      'which keeps `fields`).',
    query: EventsReadQuery,
    responses: { 200: { description: 'A page of events', schema: z.union([EventPage, EventSelectedPage]) } },
    listing: true,
    handler: async ({ query, gateway, credentials, request }) => {
      const fields = sparseFields(query.fields, EVENT_FIELDS, 'an event');
      const pageSize = query.pageSize ?? EVENTS_PAGE_SIZE.default;
      const types =
        query.type === undefined ? undefined : Array.isArray(query.type) ? query.type : [query.type];
      const filter = {
        ...(types ? { types } : {}),
        ...(query.resource_type ? { resourceType: query.resource_type } : {}),
        ...(query.resource_id !== undefined ? { resourceId: String(query.resource_id) } : {}),
        ...(query.occurred_after ? { occurredAfter: new Date(query.occurred_after.toUpperCase()).toISOString() } : {}),
        ...(query.occurred_before ? { occurredBefore: new Date(query.occurred_before.toUpperCase()).toISOString() } : {}),
      };
      const { events } = await gateway.execute(
        ListEvents,
        { first: pageSize, after: query.pageToken ?? null, filter },
        credentials,
      );
      return page(request, events, selectedEvent(fields), pageSize);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/events/:event_id',
    operationId: 'getEvent',
    summary: 'Retrieve an event',
    tags: ['events'],
    security: 'bearer-or-api-key',
    description: 'One event the caller may read; 404 otherwise (absent and unreadable look alike).',
    params: EventIdParams,
    responses: { 200: { description: 'The event', schema: EventPublic } },
    handler: async ({ params, gateway, credentials }) => {
      const { event } = await gateway.execute(GetEvent, { id: params.event_id }, credentials);
      if (!event) throw notFound('Event', params.event_id);
      return { status: 200, body: toEventPublic(event) };
    },
  }),
  webhookRoute({
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    summary: 'Create a webhook',
    description:
      'Deliveries are POSTed as JSON events, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, ' +
      '`webhook-signature`; verify with any Standard Webhooks library and the secret answered here, once). Retried with ' +
      'exponential backoff for about 3 days; an endpoint whose delivery fails over the whole schedule is disabled. ' +
      'At most `WEBHOOK_MAX_PER_OWNER` (20) per user (409 beyond).',
    body: WebhookCreate,
    carriesSecret: true,
    responses: {
      201: { description: 'The webhook with its signing secret', schema: WebhookWithSecret },
      409: { description: 'Too many webhooks' },
    },
    handler: async ({ body, gateway, credentials, version }) => {
      const input = { url: body.url, eventTypes: body.event_types, description: body.description ?? null };
      const created = (await gateway.execute(CreateWebhook, { input }, credentials)).createWebhook;
      return {
        status: 201,
        body: withSecret(created),
        headers: {
          location: locationOf(version, WEBHOOK_PATH, {}, created.webhook.id),
          etag: versionTag(created.webhook.version, version),
        },
      };
    },
  }),
  webhookRoute({
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: "List the caller's webhooks",
    description: 'In id order; never a secret.',
    responses: { 200: { description: 'The webhooks', schema: z.array(WebhookPublic).max(1000) } },
    handler: async ({ gateway, credentials }) => {
      const { webhooks } = await gateway.execute(ListWebhooks, {}, credentials);
      return { status: 200, body: webhooks.map(toWebhookPublic) };
    },
  }),
  webhookRoute({
    method: 'get',
    path: WEBHOOK_PATH,
    operationId: 'getWebhook',
    summary: 'Retrieve a webhook',
    params: WebhookIdParams,
    versioned: true,
    responses: { 200: { description: 'The webhook', schema: WebhookPublic } },
    handler: async ({ params, gateway, credentials, version }) => {
      const { webhook } = await gateway.execute(GetWebhook, { id: String(params.webhook_id) }, credentials);
      if (!webhook) throw notFound('Webhook', params.webhook_id);
      return webhookResponse(webhook, version);
    },
  }),
  webhookRoute({
    method: 'patch',
    path: WEBHOOK_PATH,
    operationId: 'updateWebhook',
    summary: 'Modify a webhook',
    description: '`enabled: true` enables a webhook again, also one disabled for failing.',
    params: WebhookIdParams,
    body: WebhookUpdate,
    versioned: true,
    responses: { 200: { description: 'The webhook after the change', schema: WebhookPublic } },
    handler: async ({ params, body, gateway, credentials, version, expectedVersion }) => {
      const input = {
        ...(body.url !== undefined ? { url: body.url } : {}),
        ...(body.event_types !== undefined ? { eventTypes: body.event_types } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      };
      const variables = { id: String(params.webhook_id), input, expectedVersion };
      return webhookResponse(
        (await gateway.execute(UpdateWebhook, variables, credentials)).updateWebhook,
        version,
      );
    },
  }),
  webhookRoute({
    method: 'delete',
    path: WEBHOOK_PATH,
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook',
    description: 'Its delivery log goes with it.',
    params: WebhookIdParams,
    versioned: true,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ params, gateway, credentials, expectedVersion }) => {
      await gateway.execute(DeleteWebhook, { id: String(params.webhook_id), expectedVersion }, credentials);
      return { status: 204 };
    },
  }),
  webhookRoute({
    method: 'post',
    path: `${WEBHOOK_PATH}/rotate-secret`,
    operationId: 'rotateWebhookSecret',
    summary: "Rotate a webhook's signing secret",
    description:
      'Answers the new secret, once. The old one keeps signing beside it for `overlap_seconds` (default 86400; 0 ends ' +
      'it now): meanwhile `webhook-signature` carries both signatures, so receivers can switch without a gap.',
    params: WebhookIdParams,
    body: WebhookRotate,
    carriesSecret: true,
    responses: { 200: { description: 'The webhook with its new secret', schema: WebhookWithSecret } },
    handler: async ({ params, body, gateway, credentials }) => {
      const variables = { id: String(params.webhook_id), overlapSeconds: body.overlap_seconds ?? null };
      const rotated = (await gateway.execute(RotateWebhookSecret, variables, credentials))
        .rotateWebhookSecret;
      return { status: 200, body: withSecret(rotated) };
    },
  }),
  webhookRoute({
    method: 'post',
    path: `${WEBHOOK_PATH}/ping`,
    operationId: 'pingWebhook',
    summary: 'Send a test ping',
    description: 'A `webhook.ping` message, delivered and logged like any event.',
    params: WebhookIdParams,
    responses: { 202: { description: 'The delivery, queued', schema: WebhookDeliveryPublic } },
    handler: async ({ params, gateway, credentials }) => {
      const { pingWebhook } = await gateway.execute(
        PingWebhook,
        { id: String(params.webhook_id) },
        credentials,
      );
      return { status: 202, body: toDeliveryPublic(pingWebhook) };
    },
  }),
  webhookRoute({
    method: 'get',
    path: `${WEBHOOK_PATH}/deliveries`,
    operationId: 'listWebhookDeliveries',
    summary: "List a webhook's deliveries",
    description: 'Newest first, each with every attempt (time, status code, duration, error).',
    params: WebhookIdParams,
    query: WebhookDeliveriesQuery,
    listing: true,
    responses: { 200: { description: 'A page of deliveries', schema: WebhookDeliveryPage } },
    handler: async ({ params, query, gateway, credentials, request }) => {
      const pageSize = query.pageSize ?? 20;
      const variables = {
        webhookId: String(params.webhook_id),
        first: pageSize,
        after: query.pageToken ?? null,
      };
      const { webhookDeliveries } = await gateway.execute(ListWebhookDeliveries, variables, credentials);
      return page(request, webhookDeliveries, toDeliveryPublic, pageSize);
    },
  }),
  webhookRoute({
    method: 'post',
    path: `${WEBHOOK_PATH}/deliveries/:delivery_id/redeliver`,
    operationId: 'redeliverWebhookDelivery',
    summary: 'Redeliver one delivery',
    description: 'A new attempt with the same `webhook-id`; 409 while the webhook is disabled.',
    params: DeliveryParams,
    responses: {
      202: { description: 'The delivery, queued again', schema: WebhookDeliveryPublic },
      409: { description: 'The webhook is disabled' },
    },
    handler: async ({ params, gateway, credentials }) => {
      const variables = { webhookId: String(params.webhook_id), deliveryId: params.delivery_id };
      const { redeliverWebhookDelivery } = await gateway.execute(
        RedeliverWebhookDelivery,
        variables,
        credentials,
      );
      return { status: 202, body: toDeliveryPublic(redeliverWebhookDelivery) };
    },
  }),
];
