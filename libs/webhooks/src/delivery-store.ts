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
 *
 * For the same reason what is still due lives in a collection of its own (`webhook_schedule`, one document per
 * delivery that has tries left: its tries so far and when the next is due), not in the delivery: a delivery whose try
 * succeeds deletes its schedule (a pass over what is due, which is small) instead of updating itself (a pass over
 * every delivery of the retention period: 82 % of FerretDB's CPU with a webhook on every write, measured), and the
 * sweep that rebuilds the queue reads only the schedule. A delivery made so (`scheduled`) is pending while its schedule
 * exists and delivered once it is gone; failed and withheld are written on the delivery itself (rare, and the log's
 * filter reads them). The fan-out inserts the schedule before the delivery: a crash in between leaves a schedule
 * without its delivery (dropped by the worker once old), never a delivery that nothing will try; a re-published
 * event's schedule for a delivery made before is harmless, since the next try's claim says it was made.
 */
import { randomUUID } from 'node:crypto';
import { MongoBulkWriteError, type Collection, type Db, type Filter } from 'mongodb';
import type { EventAudience } from '@platform/events';
import { isDuplicateKeyError, type IndexSpec } from '@platform/mongo';

export const DELIVERIES_COLLECTION = 'webhook_deliveries';
export const ATTEMPTS_COLLECTION = 'webhook_attempts';
export const SCHEDULE_COLLECTION = 'webhook_schedule';

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
  /**
   * Withheld by the fan-out, its owner's delivery budget spent (delivery-budget.ts): shown in the owner's log, which
   * other withheld deliveries are not, and redeliverable by the owner.
   */
  overBudget?: boolean;
  lastStatusCode: number | null;
  createdAt: Date;
  updatedAt: Date;
  /**
   * Its pending state and next try are in `webhook_schedule` (every delivery made since 2026-12-01): `state` stays
   * `pending` on the document until it fails or is withheld, and a pending one without a schedule was delivered.
   * Absent on deliveries made before: their state is all on the document.
   */
  scheduled?: true;
  /**
   * Never stored on the delivery: the revision of the schedule it was read with (`ScheduleDocument.revision`; absent
   * for a schedule as made). A try settles only the schedule it was read under (DeliveryStore.set).
   */
  scheduleRevision?: string;
}

/** What is still due of a delivery (`webhook_schedule`): its tries so far and when the next is due. */
export interface ScheduleDocument {
  _id: string;
  webhookId: number;
  attempts: number;
  nextAttemptAt: Date;
  createdAt: Date;
  /** A redelivery's: the `updatedAt` of the settled delivery it makes pending again (dropSettledSchedule). */
  supersedes?: Date;
  /**
   * A redelivery's, new at each one: a try read under another revision (one on its way when the redelivery came) does
   * not settle this schedule, so its outcome cannot swallow the redelivery.
   */
  revision?: string;
}

/** A delivery as its readers see it (the schedule's tries and next time in, delivered once that is gone), with its log. */
export type DeliveryView = DeliveryDocument & { attemptLog: AttemptDocument[] };

/** A schedule without its delivery (a fan-out that died between the two inserts) is dropped once this old. */
const ORPHAN_SCHEDULE_MS = 10 * 60 * 1000;

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
    scheduled: true,
  };
}

/** What is due of a delivery as it was made (or as the release before left it pending). */
const scheduleOf = (d: DeliveryDocument): ScheduleDocument => ({
  _id: d._id,
  webhookId: d.webhookId,
  attempts: d.attempts,
  nextAttemptAt: d.nextAttemptAt,
  createdAt: d.createdAt,
});

/** The delivery with its schedule in: pending with the schedule's tries and time, or delivered once it is gone. */
function withSchedule(delivery: DeliveryDocument, schedule: ScheduleDocument | null | undefined): DeliveryDocument {
  if (!delivery.scheduled || delivery.state !== 'pending') return delivery;
  if (schedule) {
    const { attempts, nextAttemptAt, revision } = schedule;
    return { ...delivery, attempts, nextAttemptAt, ...(revision === undefined ? {} : { scheduleRevision: revision }) };
  }
  return { ...delivery, state: 'delivered' };
}

/** The schedule `delivery` was read under, and no other (a redelivery's since has another revision). */
const readUnder = (delivery: Pick<DeliveryDocument, '_id' | 'scheduleRevision'>): Filter<ScheduleDocument> => ({
  _id: delivery._id,
  revision: delivery.scheduleRevision === undefined ? { $exists: false } : delivery.scheduleRevision,
});

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
  // The sweep's due tries, and a webhook's schedule when it is deleted.
  { collection: SCHEDULE_COLLECTION, key: { nextAttemptAt: 1 }, options: { name: 'nextAttemptAt_1' } },
  { collection: SCHEDULE_COLLECTION, key: { webhookId: 1 }, options: { name: 'webhookId_1' } },
  { collection: 'webhooks', key: { ownerId: 1, _id: 1 }, options: { name: 'ownerId_1__id_1' } },
  // The fan-out's read of the enabled webhooks (WebhookStore.enabled) at every batch of events.
  { collection: 'webhooks', key: { status: 1 }, options: { name: 'status_1' } },
];

export class DeliveryStore {
  readonly deliveries: Collection<DeliveryDocument>;
  readonly attempts: Collection<AttemptDocument>;
  readonly schedule: Collection<ScheduleDocument>;
  private readonly outcomes: Collection<OutcomeDocument>;

  constructor(db: Db) {
    this.deliveries = db.collection<DeliveryDocument>(DELIVERIES_COLLECTION);
    this.attempts = db.collection<AttemptDocument>(ATTEMPTS_COLLECTION);
    this.schedule = db.collection<ScheduleDocument>(SCHEDULE_COLLECTION);
    this.outcomes = db.collection<OutcomeDocument>(ATTEMPTS_COLLECTION);
  }

  /**
   * Stores the deliveries that are new; resolves them (a retried fan-out adds nothing). Their schedules go first (see
   * the module's comment): one already there is left as it is.
   */
  async createMany(deliveries: readonly DeliveryDocument[]): Promise<DeliveryDocument[]> {
    if (deliveries.length === 0) return [];
    const scheduled = deliveries.filter((d) => d.scheduled && d.state === 'pending');
    if (scheduled.length > 0) {
      await this.schedule
        .insertMany(scheduled.map(scheduleOf), { ordered: false })
        .catch((error: unknown) => {
          // Some were there (a fan-out retried): the others went in all the same (unordered).
          if (!(error instanceof MongoBulkWriteError) || !isDuplicateKeyError(error)) throw error;
        });
    }
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

  /** The delivery as its readers see it (its schedule in), or null. */
  async findById(id: string): Promise<DeliveryDocument | null> {
    const delivery = await this.deliveries.findOne({ _id: id });
    if (!delivery?.scheduled || delivery.state !== 'pending') return delivery;
    return withSchedule(delivery, await this.schedule.findOne({ _id: id }));
  }

  /** One delivery as its readers see it, with its log (views), or null. */
  async viewById(id: string): Promise<DeliveryView | null> {
    const stored = await this.deliveries.findOne({ _id: id });
    return stored && (await this.views([stored]))[0]!;
  }

  /**
   * Deliveries as their readers see them, each with its log: a delivered one's tries are those of its log (its
   * document still says what it had when it was made).
   */
  async views(deliveries: readonly DeliveryDocument[]): Promise<DeliveryView[]> {
    if (deliveries.length === 0) return [];
    const ids = deliveries.map((d) => d._id);
    const pending = deliveries.filter((d) => d.scheduled && d.state === 'pending');
    const schedules = new Map(
      (pending.length === 0 ? [] : await this.schedule.find({ _id: { $in: pending.map((d) => d._id) } }).toArray()).map(
        (s) => [s._id, s],
      ),
    );
    const attempts = await this.attemptsOf(ids);
    return deliveries.map((stored) => {
      const delivery = stored.scheduled ? withSchedule(stored, schedules.get(stored._id)) : stored;
      const attemptLog = attempts.filter((a) => a.deliveryId === delivery._id);
      const made = delivery.scheduled && delivery.state === 'delivered' && stored.state === 'pending';
      return { ...delivery, ...(made ? { attempts: attemptLog.length } : {}), attemptLog };
    });
  }

  /** What is due at `before` (the sweep that rebuilds the queue), oldest due first: each delivery and its next try. */
  async due(before: Date, limit: number): Promise<Array<{ deliveryId: string; attempt: number }>> {
    const scheduled = await this.schedule
      .find({ nextAttemptAt: { $lte: before } })
      .sort({ nextAttemptAt: 1 })
      .limit(limit)
      .toArray();
    return scheduled.map((s) => ({ deliveryId: s._id, attempt: s.attempts + 1 }));
  }

  /**
   * Deliveries of the release before (their state all on the document) still pending get a schedule, so the sweep that
   * reads only the schedule queues them too; once each (the worker at start: a pass over the deliveries on FerretDB).
   */
  async scheduleEarlierPending(): Promise<number> {
    const earlier = await this.deliveries.find({ state: 'pending', scheduled: { $exists: false } }).toArray();
    for (const delivery of earlier) {
      await insertOnce(this.schedule, scheduleOf(delivery));
      await this.deliveries.updateOne({ _id: delivery._id }, { $set: { scheduled: true } });
    }
    return earlier.length;
  }

  /** A schedule whose delivery does not exist (a fan-out that died between its inserts) is dropped once old. */
  async dropOrphanSchedule(id: string, now = Date.now()): Promise<void> {
    const schedule = await this.schedule.findOne({ _id: id });
    if (schedule && schedule.createdAt.getTime() < now - ORPHAN_SCHEDULE_MS)
      await this.schedule.deleteOne({ _id: id });
  }

  /**
   * A webhook's deliveries, newest first (the owner's log; withheld ones only for admins, but those over the owner's
   * budget), of events `readable`
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
    if (!options.withheld) conditions.push({ $or: [{ state: { $ne: 'withheld' } }, { overBudget: true }] });
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

  /**
   * Only the holder of the latest attempt's claim (or the API, for a redelivery) writes a delivery's state; `delivery`
   * is as read (findById, views: a scheduled one's tries from its schedule or log, and the schedule's revision). A
   * scheduled delivery: delivered deletes its schedule; the next try (`attempts`, `nextAttemptAt`) is written on the
   * schedule (never re-made: a schedule that went, with its webhook or for a later try that was delivered, stays gone);
   * failed or withheld on the delivery with its tries, then its schedule goes. Each of these touches only what was
   * read: the schedule of that revision, and for failed or withheld the delivery as last written (`updatedAt`), so a
   * redelivery made meanwhile (while the try was on its way) stands, and so does what that redelivery's own try
   * settled. Resolves false when a failed or withheld settlement found the delivery written since (nothing written).
   * Pending again (a redelivery) schedules the next try first under a new revision, marked with the settlement it
   * undoes (`supersedes`), then writes the delivery pending: a crash in between leaves a schedule the worker keeps
   * while it may still be on its way and drops after ORPHAN_SCHEDULE_MS (the redelivery was never acknowledged), never
   * a pending delivery without a schedule (which would read as delivered). A delivery of the release before gets its
   * schedule at its next try or redelivery, so the sweep that reads only the schedule queues it.
   */
  async set(
    delivery: Pick<
      DeliveryDocument,
      '_id' | 'webhookId' | 'scheduled' | 'createdAt' | 'attempts' | 'updatedAt' | 'scheduleRevision'
    >,
    changes: Partial<Omit<DeliveryDocument, '_id' | 'scheduleRevision'>>,
  ): Promise<boolean> {
    const id = delivery._id;
    const now = new Date();
    const { state, attempts, nextAttemptAt, ...rest } = changes;
    const schedule = async (next: Date, redelivery?: { supersedes: Date }) => {
      await this.schedule.updateOne(
        { _id: id },
        {
          $set: {
            attempts: attempts ?? delivery.attempts,
            nextAttemptAt: next,
            ...(redelivery ? { supersedes: redelivery.supersedes, revision: randomUUID() } : {}),
          },
          $setOnInsert: { webhookId: delivery.webhookId, createdAt: now },
        },
        { upsert: true },
      );
    };
    if (!delivery.scheduled) {
      if ((state === undefined || state === 'pending') && nextAttemptAt !== undefined) {
        await schedule(nextAttemptAt, state === 'pending' ? { supersedes: delivery.updatedAt } : undefined);
        await this.deliveries.updateOne({ _id: id }, { $set: { ...changes, scheduled: true, updatedAt: now } });
        return true;
      }
      await this.deliveries.updateOne({ _id: id }, { $set: { ...changes, updatedAt: now } });
      return true;
    }
    if (state === 'delivered') {
      await this.schedule.deleteOne(readUnder(delivery));
      return true;
    }
    if (state === 'failed' || state === 'withheld') {
      // Over the delivery as read only: a redelivery since wrote it pending (and its try may have settled it).
      const { matchedCount } = await this.deliveries.updateOne(
        { _id: id, updatedAt: delivery.updatedAt },
        { $set: { ...rest, state, attempts: attempts ?? delivery.attempts, updatedAt: now } },
      );
      if (matchedCount === 0) return false;
      await this.schedule.deleteOne(readUnder(delivery));
      return true;
    }
    if (state === 'pending') {
      await schedule(nextAttemptAt ?? now, { supersedes: delivery.updatedAt });
      await this.deliveries.updateOne({ _id: id }, { $set: { ...rest, state, updatedAt: now } });
      return true;
    }
    if (attempts !== undefined || nextAttemptAt !== undefined) {
      await this.schedule.updateOne(readUnder(delivery), {
        $set: {
          ...(attempts === undefined ? {} : { attempts }),
          ...(nextAttemptAt === undefined ? {} : { nextAttemptAt }),
        },
      });
    }
    return true;
  }

  /**
   * A settled delivery with a schedule: one a worker of the release before left (it settles on the document only)
   * goes; a redelivery's of this very settlement (`supersedes` it: the API writes the delivery pending next) stays
   * while it may still be on its way, and goes after ORPHAN_SCHEDULE_MS (the redelivery died before it was answered).
   * Values compared are the delivery's own stored `updatedAt`, not two processes' clocks.
   */
  async dropSettledSchedule(delivery: Pick<DeliveryDocument, '_id' | 'updatedAt'>, now = Date.now()): Promise<void> {
    await this.schedule.deleteOne({
      _id: delivery._id,
      $or: [
        { supersedes: { $exists: false } },
        { supersedes: { $lt: delivery.updatedAt } },
        { nextAttemptAt: { $lt: new Date(now - ORPHAN_SCHEDULE_MS) } },
      ],
    });
  }

  /**
   * The tries on their way among deliveries with a schedule that `filter` selects (an index range of
   * `webhook_schedule`): each one's next try claimed (its claim exists) with no outcome yet, claimed less than
   * `maxAttemptMs` ago (older: interrupted, it sends nothing more). Resolves their claims' ids.
   */
  async triesOnTheirWay(filter: Filter<ScheduleDocument>, maxAttemptMs: number, now = Date.now()): Promise<string[]> {
    const scheduled = await this.schedule.find(filter, { projection: { _id: 1, attempts: 1 } }).toArray();
    if (scheduled.length === 0) return [];
    const claimIds = scheduled.map((s) => attemptIdOf(s._id, s.attempts + 1));
    const claims = await this.attempts
      .find({ _id: { $in: claimIds } }, { projection: { _id: 1, deliveryId: 1, n: 1, startedAt: 1, finishedAt: 1 } })
      .toArray();
    const open = claims.filter((c) => c.finishedAt === null && c.startedAt.getTime() > now - maxAttemptMs);
    if (open.length === 0) return [];
    const done = await this.outcomes
      .find({ _id: { $in: open.map((c) => outcomeIdOf(c.deliveryId, c.n)) } }, { projection: { _id: 1 } })
      .toArray();
    const finished = new Set(done.map((o) => o._id));
    return open.filter((c) => !finished.has(outcomeIdOf(c.deliveryId, c.n))).map((c) => c._id);
  }

  async deleteOfWebhook(webhookId: number): Promise<void> {
    await this.deliveries.deleteMany({ webhookId });
    await this.attempts.deleteMany({ webhookId });
    await this.schedule.deleteMany({ webhookId });
  }
}
