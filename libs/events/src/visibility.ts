/**
 * Who may read an event, decided with the reader's rights now (a bearer token's account as the gateway sees it, a
 * webhook owner's account as the delivery worker reads it at delivery): the feed, the audit trail and every delivery
 * apply this one rule, so a webhook never carries what its owner could not list.
 */
import type { EventAudience } from './event-types';

/** The part of a caller the rule needs (libs/auth Principal satisfies it). */
export interface EventReader {
  kind: 'user' | 'api-key' | 'service';
  userId: number | null;
  role: string;
  scopes: readonly string[];
}

export const isEventAdmin = (reader: EventReader): boolean =>
  reader.role === 'admin' && reader.kind !== 'service';

export function canReadEvent(reader: EventReader, audience: EventAudience): boolean {
  if (isEventAdmin(reader)) return true;
  if (!reader.scopes.includes(audience.scope)) return false;
  return !audience.private || (reader.userId !== null && reader.userId === audience.ownerId);
}

/**
 * The same rule as a MongoDB filter over stored events (fields `audience.*`), so a page of the feed is selected by the
 * database and its cursor stays exact; null: the reader sees every event (an admin).
 */
export function readableEventsFilter(reader: EventReader): Record<string, unknown> | null {
  if (isEventAdmin(reader)) return null;
  const scopes = reader.scopes.filter((s) => s === 'users:read' || s === 'items:read' || s === 'posts:read');
  const own = reader.userId === null ? [] : [{ 'audience.private': true, 'audience.ownerId': reader.userId }];
  return {
    'audience.scope': { $in: scopes },
    $or: [{ 'audience.private': false }, ...own],
  };
}
