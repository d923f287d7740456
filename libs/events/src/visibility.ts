/**
 * Who may read an event, decided with the reader's rights now (a bearer token's or API key's principal as the gateway
 * sees it, a webhook owner's account as the delivery worker reads it at delivery): the feed, the audit trail and every
 * delivery apply this one rule, so a webhook never carries what its owner could not list.
 *
 * - Every reader needs the read scope of the event's kind, admins included: a token narrowed to `items:read` (or an
 *   admin's API key made with it) reads item events only, as it reads items only.
 * - A private event (API keys, password resets, webhooks) is read only through a login's token (never an
 *   API key, which may not read API keys either): its owner's, or an admin's (the audit trail).
 * - A webhook delivery leaves the platform: it carries what its owner may read now, within the read scopes of the
 *   token that made the webhook, and a private event only to an endpoint of that event's owner (an admin's endpoint
 *   never receives another user's API keys or password resets: the audit trail stays in the feed).
 */
import { EVENT_READ_SCOPES, type EventAudience } from './event-types';

/** The part of a caller the rule needs (libs/auth Principal satisfies it). */
export interface EventReader {
  kind: 'user' | 'api-key' | 'service';
  userId: number | null;
  role: string;
  scopes: readonly string[];
}

/** An admin's login: reads every private event (within its scopes). */
export const isEventAdmin = (reader: EventReader): boolean =>
  reader.role === 'admin' && reader.kind === 'user';

export function canReadEvent(reader: EventReader, audience: EventAudience): boolean {
  if (!reader.scopes.includes(audience.scope)) return false;
  if (!audience.private) return true;
  if (reader.kind !== 'user') return false;
  return isEventAdmin(reader) || (reader.userId !== null && reader.userId === audience.ownerId);
}

/**
 * Whether a webhook of `owner` (the owner's account as read now; null: gone or deactivated) that carries
 * `webhookScopes` may deliver an event with `audience`: the owner reads it now with those scopes only, and a private
 * event is the owner's own.
 */
export function canDeliverEvent(
  owner: EventReader | null,
  webhookScopes: readonly string[],
  audience: EventAudience,
): boolean {
  if (owner === null || owner.userId === null) return false;
  if (audience.private && audience.ownerId !== owner.userId) return false;
  const reader = { ...owner, scopes: owner.scopes.filter((scope) => webhookScopes.includes(scope)) };
  return canReadEvent(reader, audience);
}

/**
 * The same rule as a MongoDB filter over stored events (fields `audience.*`), so a page of the feed is selected by the
 * database and its cursor stays exact; null: the reader sees every event (an admin's login holding every read scope).
 */
export function readableEventsFilter(reader: EventReader): Record<string, unknown> | null {
  const scopes = EVENT_READ_SCOPES.filter((s) => reader.scopes.includes(s));
  const admin = isEventAdmin(reader);
  if (admin && scopes.length === EVENT_READ_SCOPES.length) return null;
  const scoped = { 'audience.scope': { $in: scopes } };
  if (admin) return scoped;
  const own =
    reader.kind === 'user' && reader.userId !== null
      ? [{ 'audience.private': true, 'audience.ownerId': reader.userId }]
      : [];
  return { ...scoped, $or: [{ 'audience.private': false }, ...own] };
}
