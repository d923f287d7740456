/**
 * What the events service does with events it is given: store each once (EventStore), then give every enabled webhook
 * that subscribes to its type a delivery (DeliveryStore, one per event and webhook) and queue it. Fanning out runs for
 * every event of a publish, stored before or not, so a publish retried after the service died between storing and
 * fanning out still fans out (deliveries are keyed, nothing doubles); a webhook created after an event never gets it.
 * Queueing failures (Redis away) are left to the worker's sweep, which queues what the database says is due. What is
 * over its owner's budget (delivery-budget.ts) is made withheld, `overBudget`: in the owner's log, redeliverable.
 */
import { eventsRecorded, webhookFanOut } from '@platform/metrics';
import type { PublishedEvent } from '@platform/mongo';
import type { EventStore, StoredEvent } from './event-store';
import { newDelivery, type DeliveryDocument, type DeliveryStore, type DeliveryView } from './delivery-store';
import type { DeliveryQueue } from './delivery-queue';
import type { DeliveryBudget } from './delivery-budget';
import { subscribes, webhookScopes, type WebhookStore } from './webhook-store';

export interface FanOutLogger {
  warn(fields: object, message: string): void;
}

export class EventFanOut {
  private queueDown = false;

  constructor(
    private readonly store: EventStore,
    private readonly webhooks: WebhookStore,
    private readonly deliveries: DeliveryStore,
    private readonly queue: DeliveryQueue | undefined,
    private readonly logger: FanOutLogger,
    /** Bounds the deliveries each owner's webhooks are given per window; absent: unbounded. */
    private readonly budget?: DeliveryBudget,
  ) {}

  /** Stores and fans out; resolves how many of the events were new. */
  async record(events: readonly PublishedEvent[]): Promise<number> {
    const now = new Date();
    const made: StoredEvent[] = events.map(({ id, ...rest }) => ({
      ...rest,
      _id: id,
      occurredAt: new Date(rest.occurredAt),
      storedAt: now,
    }));
    const fresh = await this.store.insert(made);
    for (const event of made.filter((e) => fresh.includes(e._id))) eventsRecorded.inc({ type: event.type });
    // An account deleted before its event arrived (its own user.deleted, a write still in a relay): no personal data.
    const stored = await this.store.withDeletedAccountsForgotten(made);
    await this.fanOut(stored);
    return fresh.length;
  }

  private async fanOut(events: readonly StoredEvent[]): Promise<void> {
    const webhooks = await this.webhooks.enabled();
    if (webhooks.length === 0) return;
    const now = new Date();
    const deliveries: DeliveryDocument[] = [];
    for (const event of events) {
      for (const webhook of webhooks) {
        if (!subscribes(webhook, event.type) || webhook.createdAt > event.occurredAt) continue;
        // A webhook never carries an event of a scope its token did not have (its scopes never widen), nor another
        // user's private event (the owner's role now is checked at each attempt: canDeliverEvent).
        if (!webhookScopes(webhook).includes(event.audience.scope)) continue;
        if (event.audience.private && event.audience.ownerId !== webhook.ownerId) continue;
        const message = {
          id: event._id,
          type: event.type,
          eventId: event._id,
          body: null,
          audience: event.audience,
        };
        deliveries.push(newDelivery(webhook, message, now));
      }
    }
    const created = await this.deliveries.createMany(await this.withinBudget(deliveries));
    const byId = new Map(events.map((event) => [event._id, event]));
    await this.enqueue(created, (id) => byId.get(id));
  }

  /**
   * Each owner's deliveries (events in order) as far as its budget goes; the rest withheld with the reason, never
   * tried, kept in the owner's log for a redelivery. A budget that cannot be asked (Redis and its insurance away)
   * withholds nothing: the budget bounds abuse, it does not drop events.
   */
  private async withinBudget(deliveries: DeliveryDocument[]): Promise<DeliveryDocument[]> {
    const budget = this.budget;
    if (!budget || deliveries.length === 0) return deliveries;
    const byOwner = new Map<number, DeliveryDocument[]>();
    for (const d of deliveries) byOwner.set(d.ownerId, [...(byOwner.get(d.ownerId) ?? []), d]);
    const reason =
      `over its owner's delivery budget (${budget.points} per ${budget.windowSeconds} s); ` +
      'not sent: redeliver it when the window has passed';
    const decided = await Promise.all(
      [...byOwner.values()].map(async (own) => {
        const granted = await budget.take(own[0]!.ownerId, own.length).catch((error: unknown) => {
          this.logger.warn(
            { err: { message: error instanceof Error ? error.message : String(error) } },
            'delivery budget unavailable; deliveries made without it',
          );
          return own.length;
        });
        return own.map((d, i) =>
          i < granted ? d : { ...d, state: 'withheld' as const, reason, overBudget: true as const },
        );
      }),
    );
    const all = decided.flat();
    const over = all.filter((d) => d.overBudget).length;
    if (over > 0) webhookFanOut.inc({ decision: 'over_budget' }, over);
    if (all.length > over) webhookFanOut.inc({ decision: 'scheduled' }, all.length - over);
    return all;
  }

  /**
   * Sends `delivery` (as read, with its log) once more, now: the next try after every one its log shows, pending from
   * now on, queued to run now (also when that try is queued for later, in a retry's backoff); resolves it pending.
   */
  async redeliver(delivery: DeliveryView): Promise<DeliveryView> {
    const now = new Date();
    const attempts = Math.max(delivery.attempts, ...delivery.attemptLog.map((a) => a.n));
    const again = { state: 'pending' as const, attempts, nextAttemptAt: now, reason: null };
    const changes = delivery.overBudget ? { ...again, overBudget: false } : again;
    await this.deliveries.set(delivery, changes);
    const pending = { ...delivery, ...changes };
    const queue = this.queue;
    if (queue) await this.queueing(() => queue.enqueueNow(delivery._id, attempts + 1));
    return pending;
  }

  /**
   * Queues each delivery's next attempt; a queue that is away leaves them to the sweep (they are due in the database).
   * With `eventOf`, the fan-out's new deliveries: each first attempt carries its delivery and event (delivery-queue.ts).
   */
  async enqueue(
    deliveries: readonly DeliveryDocument[],
    eventOf?: (id: string) => StoredEvent | undefined,
  ): Promise<void> {
    const queue = this.queue;
    if (!queue) return;
    await this.queueing(() =>
      queue.enqueueMany(
        deliveries.map((d) => {
          const event = d.eventId === null ? null : eventOf?.(d.eventId);
          return {
            deliveryId: d._id,
            attempt: d.attempts + 1,
            ...(eventOf && d.attempts === 0 && event !== undefined ? { first: { delivery: d, event } } : {}),
          };
        }),
      ),
    );
  }

  /** Runs one queueing step; a queue that is away is said once (until it answers again), the sweep queues what is due. */
  private async queueing(step: () => Promise<void>): Promise<void> {
    try {
      await step();
      this.queueDown = false;
    } catch (error) {
      if (!this.queueDown) {
        this.logger.warn(
          { err: { message: error instanceof Error ? error.message : String(error) } },
          'delivery queue unreachable; the worker queues due deliveries from the database',
        );
      }
      this.queueDown = true;
    }
  }
}
