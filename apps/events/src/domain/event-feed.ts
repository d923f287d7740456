/**
 * The feed and the audit trail: events newest first, filtered by type, resource and time, each page holding only the
 * events the caller may read now (readableEventsFilter: the scope of the resource's kind, and private events only to
 * their owner; an admin sees every event, which is the audit trail). Also where events arrive: `_recordEvents`, from
 * the services' relays (service principal only), stored once each and fanned out to the webhooks.
 */
import { z } from 'zod';
import { requirePrincipal, requireServicePrincipal, type Caller } from '@platform/auth';
import { validationError } from '@platform/errors';
import { parseEntityId } from '@platform/contracts';
import {
  EVENT_RESOURCE_TYPES,
  EVENT_TYPES,
  isEventId,
  readableEventsFilter,
  canReadEvent,
} from '@platform/events';
import type { PublishedEvent } from '@platform/mongo';
import type { EventFanOut, EventStore, StoredEvent } from '@platform/webhooks';
import type { Filter } from 'mongodb';

export const MAX_EVENTS_FIRST = 100;

export interface EventFilterInput {
  types?: readonly string[] | null;
  resourceType?: string | null;
  resourceId?: string | null;
  occurredAfter?: string | null;
  occurredBefore?: string | null;
}

export interface EventPage {
  nodes: StoredEvent[];
  pageInfo: { endCursor: string | null; hasNextPage: boolean };
}

const fail = (field: string, message: string): never => {
  throw validationError([{ field, message }]);
};

const instant = (field: string, value: string | null | undefined): Date | undefined => {
  if (value === undefined || value === null) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? fail(field, 'must be an RFC 3339 date-time') : date;
};

/** The stored-field conditions of a validated filter (every one given must hold). */
export function eventConditions(filter: EventFilterInput | null | undefined): Filter<StoredEvent>[] {
  const conditions: Filter<StoredEvent>[] = [];
  if (!filter) return conditions;
  if (filter.types && filter.types.length > 0) {
    if (filter.types.length > 50) fail('filter.types', 'at most 50 types');
    for (const type of filter.types) {
      if (!(EVENT_TYPES as readonly string[]).includes(type))
        fail('filter.types', `unknown event type: ${type}`);
    }
    conditions.push({ type: { $in: [...filter.types] } } as Filter<StoredEvent>);
  }
  if (filter.resourceType !== undefined && filter.resourceType !== null) {
    if (!(EVENT_RESOURCE_TYPES as readonly string[]).includes(filter.resourceType)) {
      fail('filter.resourceType', `must be one of ${EVENT_RESOURCE_TYPES.join(', ')}`);
    }
    conditions.push({ 'resource.type': filter.resourceType } as Filter<StoredEvent>);
  }
  if (filter.resourceId !== undefined && filter.resourceId !== null) {
    const id = parseEntityId(filter.resourceId, 'filter.resourceId');
    conditions.push({ 'resource.id': id } as Filter<StoredEvent>);
  }
  const after = instant('filter.occurredAfter', filter.occurredAfter);
  const before = instant('filter.occurredBefore', filter.occurredBefore);
  if (after) conditions.push({ occurredAt: { $gt: after } });
  if (before) conditions.push({ occurredAt: { $lt: before } });
  return conditions;
}

/** What `_recordEvents` accepts: events as the relays publish them (libs/mongo PublishedEvent). */
const PublishedEventSchema = z.object({
  id: z.string().refine(isEventId, 'an event id'),
  type: z.enum(EVENT_TYPES),
  occurredAt: z.coerce.date(),
  actor: z.object({ type: z.enum(['user', 'api_key', 'system']), id: z.number().int().nullable() }),
  resource: z.object({ type: z.enum(EVENT_RESOURCE_TYPES), id: z.number().int() }),
  data: z.record(z.string(), z.unknown()),
  requestId: z.string().max(200).nullable(),
  audience: z.object({
    scope: z.enum(['users:read', 'items:read', 'posts:read']),
    ownerId: z.number().int().nullable(),
    private: z.boolean(),
  }),
  deletes: z.object({ subject: z.string().max(200), fromVersion: z.number().int().min(0) }).optional(),
});

export class EventFeed {
  constructor(
    private readonly store: EventStore,
    private readonly fanOut: EventFanOut,
  ) {}

  async page(
    caller: Caller,
    args: { first?: number | null; after?: string | null; filter?: EventFilterInput | null },
    max = MAX_EVENTS_FIRST,
  ): Promise<EventPage> {
    const principal = requirePrincipal(caller.principal, caller.authError);
    const first = args.first ?? 20;
    if (!Number.isInteger(first) || first < 1 || first > max)
      fail('first', `must be an integer from 1 to ${max}`);
    if (args.after !== undefined && args.after !== null && !isEventId(args.after)) {
      fail('after', 'must be the id of an event (a page’s endCursor)');
    }
    const conditions = eventConditions(args.filter);
    const readable = readableEventsFilter(principal);
    if (readable) conditions.push(readable as Filter<StoredEvent>);
    const { events, hasMore } = await this.store.page({
      filter: conditions.length === 0 ? {} : { $and: conditions },
      after: args.after ?? null,
      first,
    });
    return {
      nodes: events,
      pageInfo: { endCursor: events.at(-1)?._id ?? null, hasNextPage: hasMore },
    };
  }

  /** One event, or null when there is none the caller may read (absent and unreadable look alike). */
  async one(caller: Caller, id: string): Promise<StoredEvent | null> {
    const principal = requirePrincipal(caller.principal, caller.authError);
    if (!isEventId(id)) return null;
    const event = await this.store.findById(id);
    return event && canReadEvent(principal, event.audience) ? event : null;
  }

  /** From the services' relays only. Resolves how many were new. */
  async record(caller: Caller, raw: readonly unknown[]): Promise<number> {
    requireServicePrincipal(caller.principal, caller.authError);
    if (raw.length > 1_000) fail('events', 'at most 1000 events a call');
    const events: PublishedEvent[] = raw.map((value, index) => {
      const parsed = PublishedEventSchema.safeParse(value);
      if (!parsed.success) return fail(`events.${index}`, 'is not an event');
      return parsed.data as PublishedEvent;
    });
    return this.fanOut.record(events);
  }

  deletionOf(caller: Caller, subject: string): Promise<number | null> {
    requireServicePrincipal(caller.principal, caller.authError);
    return this.store.deletionOf(subject);
  }
}
