/**
 * Deliveries (`webhook_deliveries`) are the truth of what must reach an endpoint; the BullMQ queue is only a cache of
 * what is due (rebuilt from here when Redis loses it). One delivery per message and webhook (`_id`
 * `<message id>-<webhook id>`, so a re-published event fans out once), and one attempt record per try
 * (`webhook_attempts`, `_id` `<delivery id>.<n>`): inserting it is the claim that makes one worker the only one to
 * make try n (ADR 0008's primitive), and it is the delivery log (time, status code, duration, error).
 *
 * A try's outcome is a second insert beside its claim (`_id` `<delivery id>.<n>.outcome`), not an update of it: on
 * FerretDB v1 an update is a pass over the whole collection under the database's one writer (an insert is an index
 * lookup), and the attempts collection keeps every try of the retention period. Readers merge the two (`attemptsOf`,
 * `findAttempt`); a claim whose `finishedAt` is set (written by an update before this) needs no outcome.
 */
import { MongoBulkWriteError, type Collection, type Db } from 'mongodb';
import type { EventAudience } from '@platform/events';
import { isDuplicateKeyError, type IndexSpec } from '@platform/mongo';

export const DELIVERIES_COLLECTION = 'webhook_deliveries';
export const ATTEMPTS_COLLECTION = 'webhook_attempts';

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'withheld';

export interface DeliveryDocument {
  _id: string;
  webhookId: number;
  ownerId: number;
  /** The `webhook-id` header: the event id, or a ping's own id; the same on every attempt (receivers dedupe by it). */
  messageId: string;
  eventType: string;
  /** The event delivered (read at each attempt); null for a ping, whose body is `body`. */
  eventId: string | null;
  body: Record<string, unknown> | null;
  /**
   * Who may read the event (a copy of its audience; null for a ping): the delivery log lists a delivery only to whoever
   * may read its event now, so a pending delivery of another member's private event shows nothing of it.
   */
  audience: EventAudience | null;
  state: DeliveryState;
  /** Attempts started so far. */
  attempts: number;
  nextAttemptAt: Date;
  /** Why it was withheld or given up (no attempt log entry says it). */
  reason: string | null;
  lastStatusCode: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AttemptDocument {
  _id: string;
  deliveryId: string;
  webhookId: number;
  n: number;
  startedAt: Date;
  finishedAt: Date | null;
  statusCode: number | null;
  durationMs: number | null;
  error: string | null;
}

/** A try's outcome, stored beside its claim in the attempts collection. */
interface OutcomeDocument {
  _id: string;
  deliveryId: string;
  webhookId: number;
  n: number;
  outcome: true;
  finishedAt: Date;
  statusCode: number | null;
  durationMs: number | null;
  error: string | null;
}

export const deliveryIdOf = (messageId: string, webhookId: number): string => `${messageId}-${webhookId}`;
export const attemptIdOf = (deliveryId: string, n: number): string => `${deliveryId}.${n}`;
const outcomeIdOf = (deliveryId: string, n: number): string => `${attemptIdOf(deliveryId, n)}.outcome`;

/** Inserts `document` unless its `_id` is taken (ADR 0008's primitive): true for the one caller whose insert succeeded. */
async function insertOnce<T extends { _id: string }>(collection: Collection<T>, document: T): Promise<boolean> {
  try {
    await collection.insertOne(document as never);
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}

/** A claim with its outcome written in (when there is one). */
function withOutcome(claim: AttemptDocument, outcome: OutcomeDocument | undefined | null): AttemptDocument {
  if (!outcome || claim.finishedAt !== null) return claim;
  const { finishedAt, statusCode, durationMs, error } = outcome;
  return { ...claim, finishedAt, statusCode, durationMs, error };
}

/** A new delivery of one message to one webhook, due now: an event's (body read at each attempt) or a ping's. */
export function newDelivery(
  webhook: { _id: number; ownerId: number },
  message: {
    id: string;
    type: string;
    eventId: string | null;
    body: Record<string, unknown> | null;
    audience: EventAudience | null;
  },
  now = new Date(),
): DeliveryDocument {
  return {
    _id: deliveryIdOf(message.id, webhook._id),
    webhookId: webhook._id,
    ownerId: webhook.ownerId,
    messageId: message.id,
    eventType: message.type,
    eventId: message.eventId,
    body: message.body,
    audience: message.audience,
    state: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    reason: null,
    lastStatusCode: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The sweep's due deliveries, a webhook's log, a delivery's attempts; webhooks by owner and the enabled ones. */
export const DELIVERY_INDEXES: IndexSpec[] = [
  {
    collection: DELIVERIES_COLLECTION,
    key: { state: 1, nextAttemptAt: 1 },
    options: { name: 'state_1_nextAttemptAt_1' },
  },
  {
    collection: DELIVERIES_COLLECTION,
    key: { webhookId: 1, _id: -1 },
    options: { name: 'webhookId_1__id_-1' },
  },
  { collection: ATTEMPTS_COLLECTION, key: { deliveryId: 1, n: 1 }, options: { name: 'deliveryId_1_n_1' } },
  { collection: 'webhooks', key: { ownerId: 1, _id: 1 }, options: { name: 'ownerId_1__id_1' } },
  // The fan-out's read of the enabled webhooks (WebhookStore.enabled) at every batch of events.
  { collection: 'webhooks', key: { status: 1 }, options: { name: 'status_1' } },
];

export class DeliveryStore {
  readonly deliveries: Collection<DeliveryDocument>;
  readonly attempts: Collection<AttemptDocument>;
  private readonly outcomes: Collection<OutcomeDocument>;

  constructor(db: Db) {
    this.deliveries = db.collection<DeliveryDocument>(DELIVERIES_COLLECTION);
    this.attempts = db.collection<AttemptDocument>(ATTEMPTS_COLLECTION);
    this.outcomes = db.collection<OutcomeDocument>(ATTEMPTS_COLLECTION);
  }

  /** Stores the deliveries that are new; resolves them (a retried fan-out adds nothing). */
  async createMany(deliveries: readonly DeliveryDocument[]): Promise<DeliveryDocument[]> {
    if (deliveries.length === 0) return [];
    try {
      await this.deliveries.insertMany([...deliveries], { ordered: false });
      return [...deliveries];
    } catch (error) {
      if (!(error instanceof MongoBulkWriteError)) throw error;
      const fresh: DeliveryDocument[] = [];
      for (const delivery of deliveries) {
        try {
          await this.deliveries.insertOne(delivery);
          fresh.push(delivery);
        } catch (one) {
          if (!isDuplicateKeyError(one)) throw one;
        }
      }
      return fresh;
    }
  }

  findById(id: string): Promise<DeliveryDocument | null> {
    return this.deliveries.findOne({ _id: id });
  }

  /** Deliveries due at `before` (the sweep that rebuilds the queue), oldest due first. */
  due(before: Date, limit: number): Promise<DeliveryDocument[]> {
    return this.deliveries
      .find({ state: 'pending', nextAttemptAt: { $lte: before } })
      .sort({ nextAttemptAt: 1 })
      .limit(limit)
      .toArray();
  }

  /**
   * A webhook's deliveries, newest first (the owner's log; withheld ones only for admins), of events `readable`
   * selects (a readableEventsFilter over `audience.*`; null: every one); pings are everyone's.
   */
  ofWebhook(
    webhookId: number,
    options: {
      withheld: boolean;
      readable: Record<string, unknown> | null;
      before: string | null;
      first: number;
    },
  ) {
    const conditions: Record<string, unknown>[] = [{ webhookId }];
    if (!options.withheld) conditions.push({ state: { $ne: 'withheld' } });
    if (options.readable) conditions.push({ $or: [{ audience: null }, options.readable] });
    if (options.before) conditions.push({ _id: { $lt: options.before } });
    return this.deliveries.find({ $and: conditions }).sort({ _id: -1 }).limit(options.first).toArray();
  }

  /** The tries of these deliveries, each with its outcome, by delivery and try. */
  async attemptsOf(deliveryIds: readonly string[]): Promise<AttemptDocument[]> {
    const found = await this.attempts
      .find({ deliveryId: { $in: [...deliveryIds] } })
      .sort({ deliveryId: 1, n: 1 })
      .toArray();
    const outcomes = new Map<string, OutcomeDocument>();
    for (const doc of found as Array<AttemptDocument | OutcomeDocument>) {
      if ('outcome' in doc) outcomes.set(attemptIdOf(doc.deliveryId, doc.n), doc);
    }
    return found
      .filter((doc) => !('outcome' in doc))
      .map((claim) => withOutcome(claim, outcomes.get(claim._id)));
  }

  /** Try n's claim with its outcome; null when nobody claimed it. Two reads by `_id` (each an index lookup). */
  async findAttempt(deliveryId: string, n: number): Promise<AttemptDocument | null> {
    const claim = await this.attempts.findOne({ _id: attemptIdOf(deliveryId, n) });
    if (!claim || claim.finishedAt !== null) return claim;
    return withOutcome(claim, await this.outcomes.findOne({ _id: outcomeIdOf(deliveryId, n) }));
  }

  /** The claim of try `n`: true for the one caller whose insert succeeded. */
  claimAttempt(delivery: DeliveryDocument, n: number, now = new Date()): Promise<boolean> {
    return insertOnce(this.attempts, {
      _id: attemptIdOf(delivery._id, n),
      deliveryId: delivery._id,
      webhookId: delivery.webhookId,
      n,
      startedAt: now,
      finishedAt: null,
      statusCode: null,
      durationMs: null,
      error: null,
    });
  }

  /**
   * Records try n's outcome (its claim's holder, or whoever finds the claim interrupted). The first outcome stays: a
   * second one (two workers judging the same interrupted try) is refused by the key and changes nothing.
   */
  async finishAttempt(
    delivery: { _id: string; webhookId: number },
    n: number,
    result: { statusCode: number | null; durationMs: number | null; error: string | null },
  ): Promise<void> {
    await insertOnce<OutcomeDocument>(this.outcomes, {
      _id: outcomeIdOf(delivery._id, n),
      deliveryId: delivery._id,
      webhookId: delivery.webhookId,
      n,
      outcome: true,
      ...result,
      finishedAt: new Date(),
    });
  }

  /** Only the holder of the latest attempt's claim (or the API, for a redelivery) writes a delivery's state. */
  async set(id: string, changes: Partial<Omit<DeliveryDocument, '_id'>>): Promise<void> {
    await this.deliveries.updateOne({ _id: id }, { $set: { ...changes, updatedAt: new Date() } });
  }

  async deleteOfWebhook(webhookId: number): Promise<void> {
    await this.deliveries.deleteMany({ webhookId });
    await this.attempts.deleteMany({ webhookId });
  }
}
