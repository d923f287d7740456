/**
 * Event and webhook schemas (issue 26): the feed's query and page (GET /events), an event, and webhooks with their
 * deliveries. Event types and resource kinds come from libs/events, the one catalogue.
 */
import { z } from 'zod';
import { EVENT_ID_PATTERN, EVENT_READ_SCOPES, EVENT_RESOURCE_TYPES, EVENT_TYPES } from '@platform/events';
import { strictBody } from './strict-body';
import { text } from './text';
import { ENTITY_ID_MAX, entityIdParam } from './entity-id';
import { DATE_TIME_MESSAGE, isRfc3339DateTime } from './date-time';

const timestamp = z.string().max(32).meta({ format: 'date-time' });
const EventId = z.string().regex(EVENT_ID_PATTERN).max(30);
const EventTypeName = z.enum(EVENT_TYPES, `must be one of ${EVENT_TYPES.join(', ')}`);
/** RFC 3339's date-time, a real instant (date-time.ts): Date.parse alone also takes `0.5` or February 30. */
const instant = z.string().max(40).refine(isRfc3339DateTime, DATE_TIME_MESSAGE).meta({ format: 'date-time' });

export const EVENTS_PAGE_SIZE = { default: 20, min: 1, max: 100 } as const;

/** GET /events: filters (all must hold) and the cursor (the last event id of the previous page). */
export const EventsQuery = z
  .object({
    type: z
      .union([EventTypeName, z.array(EventTypeName).max(EVENT_TYPES.length)])
      .optional()
      .describe('Only these types (repeat the parameter for several)'),
    resource_type: z
      .enum(EVENT_RESOURCE_TYPES)
      .optional()
      .describe('Only events about this kind of resource'),
    resource_id: entityIdParam("Only events about this resource's id").optional(),
    occurred_after: instant.optional().describe('Only events after this instant'),
    occurred_before: instant.optional().describe('Only events before this instant'),
    pageSize: z.coerce
      .number()
      .int()
      .min(EVENTS_PAGE_SIZE.min)
      .max(EVENTS_PAGE_SIZE.max)
      .optional()
      .describe(`Events per page, newest first (default ${EVENTS_PAGE_SIZE.default})`),
    pageToken: EventId.optional().describe("The previous page's `nextPageToken`"),
  })
  .strict();

export const EventActorSchema = z.object({
  type: z.enum(['user', 'api_key', 'system']),
  id: z.number().int().nullable(),
});

export const EventPublic = z
  .object({
    id: EventId.describe('`evt_` + a ULID: unique, sorted by time'),
    type: z.string().max(40).describe('What happened, e.g. `item.updated`'),
    occurred_at: timestamp.describe('When'),
    actor: EventActorSchema.describe('Who: a user, an API key, or the system'),
    resource: z
      .object({ type: z.enum(EVENT_RESOURCE_TYPES), id: z.number().int() })
      .describe('What it is about'),
    data: z
      .record(z.string().max(64), z.unknown())
      .describe("The resource's representation after the change (before it, for a deletion)"),
    request_id: z.string().max(200).nullable().describe('The X-Request-Id of the request that made it'),
  })
  .meta({
    id: 'Event',
    description: 'A change recorded by the service that made it.',
    example: {
      id: 'evt_01JD8Z5W3X4Y5Z6A7B8C9D0E1F',
      type: 'item.updated',
      occurred_at: '2026-11-26T12:00:00.000Z',
      actor: { type: 'user', id: 7 },
      resource: { type: 'item', id: 42 },
      data: { id: 42, name: 'Lamp', description: null, price: 19.99, owner_id: 7 },
      request_id: '4f1c2b7e-8d0a-4b7e-9c1d-2a3b4c5d6e7f',
    },
  });

export const EventPage = z
  .object({
    data: z.array(EventPublic).max(EVENTS_PAGE_SIZE.max),
    pagination: z.object({
      nextPageToken: EventId.nullable().describe('Token of the next (older) page; null when none follows'),
      pageSize: z.number().int().min(EVENTS_PAGE_SIZE.min).max(EVENTS_PAGE_SIZE.max),
    }),
  })
  .meta({
    id: 'EventPage',
    description: 'A page of events, newest first.',
    example: {
      data: [EventPublic.meta()?.['example']],
      pagination: { nextPageToken: 'evt_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', pageSize: 1 },
    },
  });

/**
 * Declared as production takes it (an https URL; `http` also outside production, which the document does not show);
 * the events service checks it (WHATWG parsing, a host as written, no inside IP literal, no credentials, no fragment),
 * so the schema only says what it is.
 */
const WebhookUrl = z
  .string()
  .min(1)
  .max(2048)
  .meta({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]://[^\\s]+$' })
  .describe('An absolute https URL (http also outside production), no credentials, no fragment');
const EventTypes = z
  .array(z.union([EventTypeName, z.literal('*')]))
  .min(1, 'must name at least one event type, or *')
  .max(EVENT_TYPES.length + 1)
  .describe('Event types to receive, or `*` for every type');
const Description = text().max(500).nullable();

export const WebhookCreate = strictBody(
  'WebhookCreate',
  { url: WebhookUrl, event_types: EventTypes, description: Description.optional() },
  {
    description: 'A new webhook endpoint.',
    example: {
      url: 'https://example.com/hooks',
      event_types: ['item.created', 'item.deleted'],
      description: 'sync',
    },
  },
);

export const WebhookUpdate = strictBody(
  'WebhookUpdate',
  {
    url: WebhookUrl.optional(),
    event_types: EventTypes.optional(),
    description: Description.optional(),
    enabled: z.boolean().optional().describe('false disables it; true enables it again (also after failing)'),
  },
  { description: 'The fields to change; omitted ones stay.', example: { enabled: true } },
);

export const WebhookRotate = strictBody(
  'WebhookRotate',
  {
    overlap_seconds: z
      .number()
      .int()
      .min(0)
      .max(604_800)
      .optional()
      .describe('How long the old secret keeps signing beside the new one (default 86400; 0 ends it now)'),
  },
  { description: 'A secret rotation.', example: { overlap_seconds: 3600 } },
);

const WebhookFields = {
  id: z.number().int().min(1).max(ENTITY_ID_MAX),
  url: z.string().max(2048),
  event_types: z.array(z.string().max(40)).max(EVENT_TYPES.length + 1),
  scopes: z
    .array(z.enum(EVENT_READ_SCOPES))
    .max(EVENT_READ_SCOPES.length)
    .describe(
      'The read scopes its deliveries are bound to: those of the token that created it. Changing the webhook needs a token with all of them.',
    ),
  description: z.string().max(500).nullable(),
  status: z.enum(['enabled', 'disabled']),
  disabled_reason: z
    .string()
    .max(100)
    .nullable()
    .describe('`failing` (every attempt of a delivery failed) or `by its owner`'),
  owner_id: z.number().int().min(1).max(ENTITY_ID_MAX),
  previous_secret_expires_at: timestamp
    .nullable()
    .describe('While a rotated-out secret still signs: until when'),
  created_at: timestamp,
  updated_at: timestamp,
};

export const WebhookPublic = z.object(WebhookFields).meta({
  id: 'Webhook',
  description: 'A webhook endpoint (never its secret).',
  example: {
    id: 3,
    url: 'https://example.com/hooks',
    event_types: ['item.created'],
    scopes: ['users:read', 'items:read', 'posts:read'],
    description: null,
    status: 'enabled',
    disabled_reason: null,
    owner_id: 7,
    previous_secret_expires_at: null,
    created_at: '2026-11-26T12:00:00.000Z',
    updated_at: '2026-11-26T12:00:00.000Z',
  },
});

export const WebhookWithSecret = z
  .object({
    ...WebhookFields,
    secret: z
      .string()
      .max(100)
      .describe('The Standard Webhooks signing secret (`whsec_...`). Shown only in this response.'),
  })
  .meta({
    id: 'WebhookWithSecret',
    description: 'A webhook with its signing secret: keep `secret` now, it is not shown again.',
  });

export const WebhookAttemptPublic = z.object({
  number: z.number().int().min(1),
  at: timestamp,
  status_code: z.number().int().nullable().describe("The endpoint's HTTP status; null when none came"),
  duration_ms: z.number().int().nullable(),
  error: z.string().max(300).nullable(),
});

export const WebhookDeliveryPublic = z
  .object({
    id: z.string().max(80),
    webhook_id: z.number().int(),
    message_id: z.string().max(40).describe("The `webhook-id` header (the event id, or a ping's id)"),
    event_type: z.string().max(40),
    status: z.enum(['pending', 'delivered', 'failed', 'withheld']),
    attempt_count: z.number().int().min(0),
    next_attempt_at: timestamp.nullable(),
    reason: z.string().max(200).nullable(),
    created_at: timestamp,
    attempts: z.array(WebhookAttemptPublic).max(100),
  })
  .meta({
    id: 'WebhookDelivery',
    description: 'One event (or ping) on its way to one endpoint, with every attempt.',
  });

export const WebhookDeliveriesQuery = z
  .object({
    pageSize: z.coerce.number().int().min(1).max(100).optional().describe('Deliveries per page (default 20)'),
    pageToken: z.string().max(80).optional().describe("The previous page's `nextPageToken`"),
  })
  .strict();

export const WebhookDeliveryPage = z
  .object({
    data: z.array(WebhookDeliveryPublic).max(100),
    pagination: z.object({ nextPageToken: z.string().max(80).nullable(), pageSize: z.number().int() }),
  })
  .meta({
    id: 'WebhookDeliveryPage',
    description: 'A page of deliveries, newest first.',
    example: {
      data: [
        {
          id: 'evt_01JD8Z5W3X4Y5Z6A7B8C9D0E1F-3',
          webhook_id: 3,
          message_id: 'evt_01JD8Z5W3X4Y5Z6A7B8C9D0E1F',
          event_type: 'item.updated',
          status: 'delivered',
          attempt_count: 2,
          next_attempt_at: null,
          reason: null,
          created_at: '2026-11-26T12:00:00.000Z',
          attempts: [
            { number: 1, at: '2026-11-26T12:00:00.010Z', status_code: 503, duration_ms: 41, error: null },
            { number: 2, at: '2026-11-26T12:00:05.120Z', status_code: 200, duration_ms: 35, error: null },
          ],
        },
      ],
      pagination: { nextPageToken: null, pageSize: 20 },
    },
  });
