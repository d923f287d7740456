/**
 * The event catalogue and an event's shape: what every service records (libs/mongo event-outbox), the events service
 * stores and serves (GET /events, Query.events) and the delivery worker signs and sends. One list, so the REST
 * contract, the GraphQL enum check and the webhook subscriptions cannot drift apart.
 */

/** Every event type a write records, the webhook writes (the events service's own) included. */
export const EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.activated',
  'user.deactivated',
  'user.deleted',
  'user.password_reset',
  'item.created',
  'item.updated',
  'item.deleted',
  'post.created',
  'post.updated',
  'post.deleted',
  'post.liked',
  'post.unliked',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'api_key.created',
  'api_key.updated',
  'api_key.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.secret_rotated',
  'webhook.deleted',
  'webhook.disabled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What a webhook delivers besides the catalogue: the test message `POST /webhooks/{id}/ping` sends. */
export const PING_EVENT_TYPE = 'webhook.ping';

export const isEventType = (value: string): value is EventType =>
  (EVENT_TYPES as readonly string[]).includes(value);

/** The kinds of resource an event is about (`resource.type`). */
export const EVENT_RESOURCE_TYPES = ['user', 'item', 'post', 'comment', 'api_key', 'webhook'] as const;
export type EventResourceType = (typeof EVENT_RESOURCE_TYPES)[number];

/** The read scopes events are bound to (an audience's `scope`). */
export const EVENT_READ_SCOPES = ['users:read', 'items:read', 'posts:read'] as const;
export type EventReadScope = (typeof EVENT_READ_SCOPES)[number];

/**
 * The read scope the events of a type need (the `scope` of their audience): accounts, API keys and webhooks are
 * `users:read`'s, items `items:read`'s, posts, comments and likes `posts:read`'s.
 */
export function eventTypeScope(type: EventType): EventReadScope {
  if (type.startsWith('item.')) return 'items:read';
  if (type.startsWith('post.') || type.startsWith('comment.')) return 'posts:read';
  return 'users:read';
}

/** Who made the change: a user (bearer token), an API key, or the platform itself (a cascade, the delivery worker). */
export interface EventActor {
  type: 'user' | 'api_key' | 'system';
  /** The user's or key's id; null for the system. */
  id: number | null;
}

/**
 * Who may read an event: holders of `scope` (admins always); with `private`, only `ownerId` (and admins). Decided
 * when the event is read or delivered, against the reader's rights at that moment, never stored as a verdict.
 */
export interface EventAudience {
  scope: EventReadScope;
  ownerId: number | null;
  private: boolean;
}

/** An event as a service records it (before the events service stores it). */
export interface RecordedEvent {
  /** `evt_` + a ULID: unique, and sorted by the time it was made. */
  id: string;
  type: EventType;
  occurredAt: Date;
  actor: EventActor;
  resource: { type: EventResourceType; id: number };
  /** The resource's public REST representation after the change (before it, for a deletion). */
  data: Record<string, unknown>;
  requestId: string | null;
  audience: EventAudience;
}

/** The REST/JSON form of an event (what `GET /events` lists and a webhook receives as its body). */
export interface PublicEvent {
  id: string;
  type: string;
  occurred_at: string;
  actor: EventActor;
  resource: { type: string; id: number };
  data: Record<string, unknown>;
  request_id: string | null;
}

export const toPublicEvent = (event: RecordedEvent): PublicEvent => ({
  id: event.id,
  type: event.type,
  occurred_at: event.occurredAt.toISOString(),
  actor: event.actor,
  resource: event.resource,
  data: event.data,
  request_id: event.requestId,
});
