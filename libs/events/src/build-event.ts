/** One event of a write, from the caller that made it: id, time, actor and request id filled in the same way everywhere. */
import { newEventId } from './event-id';
import type { EventActor, EventAudience, EventResourceType, EventType, RecordedEvent } from './event-types';

/** What the event needs to know of the caller (a subgraph request context satisfies it). */
export interface EventCaller {
  principal: { kind: 'user' | 'api-key' | 'service'; userId: number | null } | null;
  requestId?: string | undefined;
}

export const actorOf = (caller: EventCaller): EventActor => {
  const principal = caller.principal;
  if (!principal || principal.kind === 'service') return { type: 'system', id: null };
  return { type: principal.kind === 'api-key' ? 'api_key' : 'user', id: principal.userId };
};

export function buildEvent(
  caller: EventCaller,
  type: EventType,
  resource: { type: EventResourceType; id: number },
  data: Record<string, unknown>,
  audience: EventAudience,
): RecordedEvent {
  const occurredAt = new Date();
  return {
    id: newEventId(occurredAt.getTime()),
    type,
    occurredAt,
    actor: actorOf(caller),
    resource,
    data,
    requestId: caller.requestId ?? null,
    audience,
  };
}
