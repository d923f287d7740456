/**
 * One delivery attempt, and the sweep that keeps the queue honest (ADR 0024).
 *
 * An attempt: read the delivery (pending only), its webhook (enabled only), its owner's rights now and the event (a
 * first attempt queued by the fan-out carries the delivery and the event as they were created: delivery-queue.ts);
 * withhold the delivery when the owner may not read the event (or is deactivated); claim try n by inserting its
 * attempt record (one worker per try, also when the fan-out and the sweep queued the same try); sign and send; record
 * the outcome; then delivered, or the next try queued after the schedule's delay, or, the schedule spent, failed and
 * the webhook disabled (with a `webhook.disabled` event, recorded through the events database's own outbox).
 * A worker killed mid-attempt leaves a claim without an outcome: BullMQ hands the stalled job to another worker (or
 * the sweep queues it again), which finds the claim older than an attempt can last, records it as interrupted and
 * moves on to the next try. Redis flushed: the sweep queues every delivery the database says is due.
 */
import {
  buildEvent,
  canDeliverEvent,
  UnreadableSecretError,
  nextAttemptDelayMs,
  toPublicEvent,
  type RecordedEvent,
} from '@platform/events';
import type { Logger } from '@platform/logging';
import {
  webhookDeliveries,
  webhookDeliveryDuration,
  webhookDeliveryLag,
  webhookDuePending,
  webhookQueueDepth,
  webhooksDisabled,
} from '@platform/metrics';
import type { EventOutbox } from '@platform/mongo';
import type {
  DeliveryDocument,
  DeliveryJob,
  DeliveryQueue,
  DeliveryStore,
  EventFanOut,
  EventStore,
  StoredEvent,
  WebhookDocument,
  WebhookStore,
} from '@platform/webhooks';
import { firstAttemptOf, webhookScopes, withoutPersonalData } from '@platform/webhooks';
import type { OwnerRights } from './owner-rights';
import type { SendResult, WebhookSender } from './sender';

export interface ProcessorDeps {
  logger: Logger;
  events: EventStore;
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  queue: DeliveryQueue;
  fanOut: EventFanOut;
  outbox: EventOutbox;
  sender: WebhookSender;
  owners: OwnerRights;
  /** Seconds to wait after each failed try (WEBHOOK_RETRY_SCHEDULE). */
  schedule: readonly number[];
  /** The longest one attempt may take (WEBHOOK_TIMEOUT_MS): a claim older than this, unfinished, was interrupted. */
  timeoutMs: number;
  /** Called once a try is claimed, before it is sent: makes what the job wrote so far known (worker-writes.ts). */
  claimed?: () => Promise<void>;
}

const SWEEP_BATCH = 500;
/** The reason a delivery whose signing secret no key opens fails with (its owner's log). */
export const UNREADABLE_SECRET =
  "the webhook's signing secret cannot be opened by the service: rotate the secret, then redeliver";

/** A stored event as a delivery's body (its public representation, as the feed shows it). */
const publicBody = (stored: StoredEvent): string => {
  const { _id, ...rest } = stored;
  return JSON.stringify(toPublicEvent({ ...rest, id: _id } as RecordedEvent));
};

export class DeliveryProcessor {
  constructor(private readonly deps: ProcessorDeps) {}

  async process(job: DeliveryJob): Promise<void> {
    const { deliveries, webhooks } = this.deps;
    // A first attempt from the fan-out: the delivery as created (pending, no attempt yet; whether try 1 was made since
    // is decided by its claim below) and its event. Otherwise read now.
    const first = firstAttemptOf(job);
    const delivery = first?.delivery ?? (await deliveries.findById(job.deliveryId));
    if (!delivery) {
      await deliveries.dropOrphanSchedule(job.deliveryId);
      return;
    }
    if (delivery.state !== 'pending') {
      // Settled (by a worker of the release before, which leaves the schedule): nothing is due any more.
      if (delivery.scheduled) await deliveries.dropSettledSchedule(delivery);
      return;
    }
    const webhook = await webhooks.findById(delivery.webhookId);
    if (!webhook || webhook.status !== 'enabled') {
      await deliveries.set(delivery, {
        state: 'failed',
        reason: webhook ? 'endpoint disabled' : 'endpoint deleted',
      });
      return;
    }
    const message = await this.bodyFor(delivery, webhook, first?.event);
    if ('state' in message) {
      await deliveries.set(delivery, { state: message.state, reason: message.reason });
      webhookDeliveries.inc({ outcome: message.state });
      return;
    }
    const { occurredAt } = message;
    let { body } = message;
    // Opened before the try is claimed: a secret no key of WEBHOOK_SECRETS_KEY's ring opens fails the delivery at once
    // (nothing was sent; no retry can do better until the key is back or the secret rotated), never as a try.
    const secrets = this.openSecrets(webhook, delivery);
    if (!secrets) {
      await deliveries.set(delivery, { state: 'failed', reason: UNREADABLE_SECRET });
      webhookDeliveries.inc({ outcome: 'unreadable_secret' });
      return;
    }
    const n = delivery.attempts + 1;
    if (!(await deliveries.claimAttempt(delivery, n))) {
      await this.claimTaken(delivery, n);
      return;
    }
    // After the claim (ADR 0009's order): an account deletion marks the account, then waits for the tries claimed
    // before; a try claimed after finds the mark and sends nothing to its endpoints, nor its personal data elsewhere.
    const about = message.event?.resource.type === 'user' ? message.event.resource.id : null;
    const [ownerDeleted, aboutDeleted] = await Promise.all([
      this.deps.events.accountDeleted(webhook.ownerId),
      about === null ? false : this.deps.events.accountDeleted(about),
    ]);
    if (ownerDeleted) {
      const reason = 'the owner account is deactivated or gone';
      await deliveries.finishAttempt(delivery, n, { statusCode: null, durationMs: null, error: `not sent: ${reason}` });
      await deliveries.set(delivery, { state: 'withheld', attempts: n, reason });
      webhookDeliveries.inc({ outcome: 'withheld' });
      return;
    }
    if (aboutDeleted && message.event) body = publicBody(withoutPersonalData(message.event));
    await this.deps.claimed?.();
    const result = await this.deps.sender.send(webhook.url, {
      id: delivery.messageId,
      timestamp: new Date(),
      body,
      secrets,
    });
    webhookDeliveryDuration.observe(result.durationMs / 1000);
    if (result.detail !== undefined) {
      // The operator's view of a failed try: what the owner's log leaves out (the address refused and its range).
      this.deps.logger[result.refused ? 'warn' : 'info'](
        { delivery: delivery._id, webhook: webhook._id, attempt: n, error: result.error, detail: result.detail },
        result.refused ? 'delivery refused by the egress check' : 'delivery attempt failed',
      );
    }
    await deliveries.finishAttempt(delivery, n, {
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: result.error,
    });
    await this.settle(delivery, webhook, n, result, false, occurredAt);
  }

  /** The webhook's signing secrets, or undefined (logged, without any secret or key) when no key opens the current one. */
  private openSecrets(webhook: WebhookDocument, delivery: DeliveryDocument): string[] | undefined {
    try {
      return this.deps.webhooks.signingSecrets(webhook);
    } catch (error) {
      if (!(error instanceof UnreadableSecretError)) throw error;
      this.deps.logger.error(
        { webhookId: webhook._id, deliveryId: delivery._id },
        "delivery failed: no WEBHOOK_SECRETS_KEY of this worker opens the webhook's signing secret",
      );
      return undefined;
    }
  }

  /**
   * The body to send, or why not: the owner's account gone or deactivated, the event from before the owner's current
   * active period (it happened while the account was deactivated, or before that), or one the owner may not read now
   * with the scopes the webhook carries (withheld: never sent, not shown in the owner's log); the event past retention
   * (failed).
   */
  private async bodyFor(
    delivery: DeliveryDocument,
    webhook: WebhookDocument,
    /** The event as the fan-out had it (a first attempt's job), if it came along. */
    carried?: StoredEvent | null,
  ): Promise<
    | { body: string; occurredAt: Date | null; event: StoredEvent | null }
    | { state: 'withheld' | 'failed'; reason: string }
  > {
    const owner = await this.deps.owners.ownerOf(webhook.ownerId);
    if (!owner) return { state: 'withheld', reason: 'the owner account is deactivated or gone' };
    if (delivery.eventId === null) return { body: JSON.stringify(delivery.body), occurredAt: null, event: null };
    const stored = carried?._id === delivery.eventId ? carried : await this.deps.events.findById(delivery.eventId);
    if (!stored) return { state: 'failed', reason: 'the event is past retention' };
    // A deactivation stops the endpoint: what happened before the account was activated again stays undelivered,
    // however long a backlog held it.
    if (owner.activeSince !== null && stored.occurredAt.getTime() < owner.activeSince.getTime()) {
      return { state: 'withheld', reason: 'the event happened before the owner account was last activated' };
    }
    // The owner's role now, within the scopes of the token that made the webhook; a private event only its owner's.
    if (!canDeliverEvent(owner.reader, webhookScopes(webhook), stored.audience)) {
      return { state: 'withheld', reason: 'the owner may not read this event' };
    }
    return { body: publicBody(stored), occurredAt: stored.occurredAt, event: stored };
  }

  /** Try n was claimed before: interrupted (claim older than an attempt lasts, no outcome), or settled but not recorded. */
  private async claimTaken(delivery: DeliveryDocument, n: number): Promise<void> {
    const attempt = await this.deps.deliveries.findAttempt(delivery._id, n);
    if (!attempt) return;
    const webhook = await this.deps.webhooks.findById(delivery.webhookId);
    if (!webhook) return;
    if (attempt.finishedAt === null) {
      if (Date.now() - attempt.startedAt.getTime() < this.deps.timeoutMs + 1_000) return; // another worker is on it
      const interrupted = 'interrupted: the worker stopped during the attempt';
      await this.deps.deliveries.finishAttempt(delivery, n, {
        statusCode: null,
        durationMs: null,
        error: interrupted,
      });
      webhookDeliveries.inc({ outcome: 'interrupted' });
      await this.settle(
        delivery,
        webhook,
        n,
        {
          ok: false,
          statusCode: null,
          durationMs: 0,
          error: interrupted,
          refused: false,
        },
        true,
      );
      return;
    }
    const ok = attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
    await this.settle(
      delivery,
      webhook,
      n,
      {
        ok,
        statusCode: attempt.statusCode,
        durationMs: attempt.durationMs ?? 0,
        error: attempt.error,
        refused: false,
      },
      true,
    );
  }

  private async settle(
    delivery: DeliveryDocument,
    webhook: WebhookDocument,
    n: number,
    result: SendResult,
    counted = false,
    /** When the event occurred, if the caller read it (a ping's is null); undefined: read it here. */
    occurredAt?: Date | null,
  ): Promise<void> {
    const { deliveries, queue } = this.deps;
    if (result.ok) {
      await deliveries.set(delivery, {
        state: 'delivered',
        attempts: n,
        lastStatusCode: result.statusCode,
        reason: null,
      });
      if (!counted) webhookDeliveries.inc({ outcome: 'delivered' });
      const occurred =
        occurredAt !== undefined || !delivery.eventId
          ? occurredAt
          : (await this.deps.events.findById(delivery.eventId))?.occurredAt;
      if (occurred) webhookDeliveryLag.observe((Date.now() - occurred.getTime()) / 1000);
      return;
    }
    const delay = nextAttemptDelayMs(this.deps.schedule, n);
    if (delay === null) {
      const settled = await deliveries.set(delivery, {
        state: 'failed',
        attempts: n,
        lastStatusCode: result.statusCode,
        reason: 'every attempt of the retry schedule failed',
      });
      if (!counted) webhookDeliveries.inc({ outcome: 'exhausted' });
      // Sustained failure: the schedule ran out for the first time (a failed redelivery later disables nothing), and
      // no redelivery came meanwhile (its try is the endpoint's next chance).
      if (settled && n === this.deps.schedule.length + 1) await this.disable(webhook);
      return;
    }
    const nextAttemptAt = new Date(Date.now() + delay);
    await deliveries.set(delivery, { attempts: n, nextAttemptAt, lastStatusCode: result.statusCode });
    if (!counted) webhookDeliveries.inc({ outcome: result.refused ? 'refused' : 'failed' });
    await queue.enqueue(delivery._id, n + 1, delay).catch(() => undefined); // the sweep queues it when Redis is back
  }

  /** Sustained failure: the endpoint stops, and a `webhook.disabled` event (its owner's) says so. */
  private async disable(webhook: WebhookDocument): Promise<void> {
    const disabled = await this.deps.webhooks.update(
      webhook._id,
      { status: 'disabled', disabledReason: 'failing' },
      null,
      {
        outbox: this.deps.outbox,
        of: (after) =>
          buildEvent(
            { principal: null },
            'webhook.disabled',
            { type: 'webhook', id: after._id },
            { id: after._id, url: after.url, status: 'disabled', reason: 'failing' },
            { scope: 'users:read', ownerId: after.ownerId, private: true },
          ),
      },
    );
    if (disabled) {
      webhooksDisabled.inc();
      this.deps.logger.warn(
        { webhookId: webhook._id },
        'webhook disabled: a delivery failed over the whole retry schedule',
      );
    }
  }

  /** Queues every delivery the database says is due (what a flushed or lost Redis forgot), and updates the gauges. */
  async sweep(): Promise<void> {
    const due = await this.deps.deliveries.due(new Date(), SWEEP_BATCH);
    webhookDuePending.set(due.length);
    await this.deps.queue.enqueueMany(due);
    const depth = await this.deps.queue.depth();
    for (const [state, count] of Object.entries(depth)) webhookQueueDepth.set({ state }, count);
  }
}
