/**
 * The events service's data and delivery machinery, shared by its two processes (the `events` subgraph and the
 * `deliveries` worker): the event store, webhooks and their sealed secrets, deliveries and their attempt log, the
 * BullMQ delivery queue, and the fan-out from events to deliveries.
 */
export {
  EventStore,
  EVENTS_COLLECTION,
  EVENT_INDEXES,
  withoutPersonalData,
  type StoredEvent,
  type EventPageQuery,
} from './event-store';
export {
  WebhookStore,
  WEBHOOKS_COLLECTION,
  subscribes,
  webhookScopes,
  webhookRepresentation,
  type WebhookDocument,
  type WebhookChanges,
  type SealedSecret,
} from './webhook-store';
export {
  DeliveryStore,
  DELIVERY_INDEXES,
  DELIVERIES_COLLECTION,
  ATTEMPTS_COLLECTION,
  SCHEDULE_COLLECTION,
  deliveryIdOf,
  newDelivery,
  attemptIdOf,
  type DeliveryDocument,
  type AttemptDocument,
  type DeliveryState,
  type DeliveryView,
  type ScheduleDocument,
} from './delivery-store';
export {
  DeliveryQueue,
  DELIVERY_QUEUE,
  firstAttemptOf,
  type DeliveryJob,
  type FirstAttempt,
} from './delivery-queue';
export { EventFanOut, type FanOutLogger } from './fan-out';
export { ownerDeliveryBudget, type DeliveryBudget } from './delivery-budget';
export { localTransport } from './local-transport';
export { addressClass, canonicalAddress, isLocalhostName, type CanonicalAddress } from './address-class';
