/** Events: the catalogue and shape of an event, its id, who may read it, and how webhook secrets are kept. */
export {
  EVENT_TYPES,
  EVENT_RESOURCE_TYPES,
  PING_EVENT_TYPE,
  isEventType,
  toPublicEvent,
  eventTypeScope,
  EVENT_READ_SCOPES,
  type EventReadScope,
  type EventType,
  type EventResourceType,
  type EventActor,
  type EventAudience,
  type RecordedEvent,
  type PublicEvent,
} from './event-types';
export { newEventId, isEventId, EVENT_ID_PATTERN, EVENT_ID_PREFIX } from './event-id';
export { canReadEvent, canDeliverEvent, readableEventsFilter, isEventAdmin, type EventReader } from './visibility';
export { SecretBox, UnreadableSecretError, newSigningSecret, type SealingKeys } from './secret-box';
export { retrySchedule, nextAttemptDelayMs, DEFAULT_RETRY_SCHEDULE } from './retry-schedule';
export { buildEvent, actorOf, type EventCaller } from './build-event';
