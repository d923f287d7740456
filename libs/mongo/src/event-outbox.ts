/**
 * The change log of one service: every write records its event in the write's own path, atomically with the data
 * change, without transactions (FerretDB v1 has none; ADR 0023). The order, for every write:
 *
 *   1. insert the pending event into `event_outbox` (`_id` = the event id, a string: a primary-key insert, cheap on
 *      FerretDB too), carrying the event and how to tell afterwards whether the write happened (`check`);
 *   2. the data write itself (for a versioned write: under its version claim, so `check` can name the version);
 *   3. the write succeeded: publish the event (the relay, libs/graphql-server event-relay.ts) and drop the entry;
 *      it did not: drop the entry; it threw: decide from the data at once, still under the claim (settleThrown).
 *
 * A process that dies between 1 and 3 leaves the entry behind. The relay's sweep takes entries older than the longest
 * a write may run (EVENTS_SWEEP_AFTER_MS) and looks at the data: the record is there / at that version / gone, so the
 * write happened and the event is published; otherwise the write never happened and the entry is dropped. Nothing
 * acknowledged is lost (the data write precedes the answer) and nothing is invented (an entry whose write did not
 * happen is never published). The events service stores events by id (a unique `_id`), so the push and the sweep may
 * both publish one event: it is recorded once.
 */
import type { Collection, Db, Document } from 'mongodb';
import type { RecordedEvent } from '@platform/events';
import { currentDeadline } from '@platform/contracts';
import { databaseTurn } from './write-turns';

export const EVENT_OUTBOX_COLLECTION = 'event_outbox';

/**
 * The sweep's read of entries older than it waits (`recordedAt` range, oldest first) and its look for a later deletion
 * of the same record (`check.subject`, `check.expect`). Part of every service's indexes (ensureIndexes): each runs a
 * relay over its own outbox, and the collection exists (with these) before its first write.
 */
export const EVENT_OUTBOX_INDEXES = [
  {
    collection: EVENT_OUTBOX_COLLECTION,
    key: { recordedAt: 1, _id: 1 },
    options: { name: 'recordedAt_1__id_1' },
  },
  {
    collection: EVENT_OUTBOX_COLLECTION,
    key: { 'check.subject': 1, 'check.expect': 1 },
    options: { name: 'check.subject_1_check.expect_1' },
  },
] as const;

/**
 * How the sweep decides whether the write of an abandoned entry happened: the document `filter` selects in
 * `collection` is present (a create), absent (a delete), or at least at `version` (an update, which its version claim
 * made the only writer of that version). A record created or updated and then deleted before the sweep looked is
 * absent: the later deletion's entry or event (same `subject`, `fromVersion` >= the version) shows it happened.
 */
export interface CommitCheck {
  collection: string;
  filter: Record<string, unknown>;
  expect: 'present' | 'absent' | { versionAtLeast: number };
  /** Names the record across entries, e.g. `items:5`. */
  subject: string;
  /** A deletion: the version the record had when it went (0 for unversioned records). */
  fromVersion?: number;
}

/** A write's event and its commit check: what the outbox keeps until the event is published. */
export interface PendingEvent {
  event: RecordedEvent;
  check: CommitCheck;
}

export interface OutboxEntry extends Document {
  _id: string;
  event: RecordedEvent;
  check: CommitCheck;
  recordedAt: Date;
}

/** Where committed events go (the relay: push to the events service, then drop the entries). */
export interface EventPublisher {
  /** Called once the write committed; must not throw (the sweep retries what it could not publish). */
  committed(pending: PendingEvent): void;
  /** Fault injection for the crash tests: called between the data write and the publish. */
  afterWrite?(): void;
}

export class EventOutbox {
  readonly entries: Collection<OutboxEntry>;

  constructor(
    readonly db: Db,
    private readonly publisher: EventPublisher,
  ) {
    this.entries = db.collection<OutboxEntry>(EVENT_OUTBOX_COLLECTION);
  }

  /**
   * Runs `write` with `pending` recorded before it: `committed(result)` says whether the result means the write
   * happened (e.g. not null); the event is published only then.
   */
  async around<R>(
    pending: PendingEvent | undefined,
    write: () => Promise<R>,
    committed: (result: R) => boolean = (result) =>
      result !== null && result !== undefined && result !== false,
  ): Promise<R> {
    if (!pending) return write();
    // In this process's turn on the database, as the write it records (write-turns.ts).
    await databaseTurn(this.db, currentDeadline(), () =>
      this.entries.insertOne({
        _id: pending.event.id,
        event: pending.event,
        check: pending.check,
        recordedAt: new Date(),
      }),
    );
    let result: R;
    try {
      result = await write();
    } catch (error) {
      await this.settleThrown(pending).catch(() => undefined);
      throw error;
    }
    if (committed(result)) {
      this.publisher.afterWrite?.();
      this.publisher.committed(pending);
    } else {
      this.drop([pending.event.id]).catch(() => undefined);
    }
    return result;
  }

  /**
   * A write that threw may still have happened (a lost answer), or not (refused by a unique index, a cascade that failed
   * first). The writer still holds what made it the only writer (the version claim of an update or delete; a create's
   * new id), so the data says which right now: publish or drop, before a retry of the write can make the same check
   * hold (a PATCH refused with 409 followed by one that passes, a deletion answered 503 and retried). Where the data
   * cannot say yet (the database away, an updated record gone since), the entry stays for the sweep.
   */
  private async settleThrown(pending: PendingEvent): Promise<void> {
    const verdict = await this.decide(pending.check);
    // A create whose document is not there now never happened, or was undone (a refused registration, a post whose
    // author is being deleted): nothing deleted it that could have seen it.
    if (verdict === true) this.publisher.committed(pending);
    else if (verdict === false || pending.check.expect === 'present') await this.drop([pending.event.id]);
  }

  async drop(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    if (ids.length === 1) await this.entries.deleteOne({ _id: ids[0]! });
    else await this.entries.deleteMany({ _id: { $in: [...ids] } });
  }

  /** Entries recorded before `before`, oldest first (the sweep's work). */
  abandoned(before: Date, limit: number): Promise<OutboxEntry[]> {
    return this.entries
      .find({ recordedAt: { $lt: before } })
      .sort({ recordedAt: 1, _id: 1 })
      .limit(limit)
      .toArray();
  }

  /** A later deletion of the same subject still waiting here (the sweep's look for a create or update that was followed by one). */
  async pendingDeletionOf(subject: string): Promise<CommitCheck | null> {
    const entry = await this.entries.findOne({ 'check.subject': subject, 'check.expect': 'absent' });
    return entry?.check ?? null;
  }

  /**
   * Whether the write of `check` happened, as far as the data shows: true, false, or `deleted-since` when the record
   * is gone and only a later deletion can tell.
   */
  async decide(check: CommitCheck): Promise<boolean | 'deleted-since'> {
    const document = await this.db
      .collection(check.collection)
      .findOne(check.filter, { projection: { _id: 1, version: 1 } });
    if (check.expect === 'absent') return document === null;
    if (document === null) return 'deleted-since';
    if (check.expect === 'present') return true;
    return ((document['version'] as number | undefined) ?? 0) >= check.expect.versionAtLeast;
  }
}

/** A versioned write's event: the outbox, and the event of the record after the write (before it, for a deletion). */
export interface WriteEvent<T> {
  outbox: EventOutbox;
  of: (record: T) => RecordedEvent;
}
