/**
 * The change log of one service: every write records its event in the write's own path, atomically with the data
 * change, without transactions (FerretDB v1 has none; ADR 0023). The order, for every write:
 *
 *   1. record the pending event, with how to tell afterwards whether the write happened (`check`): a versioned write
 *      (update, delete) in its version claim, which it inserts anyway (version-claims.ts: one insert records both);
 *      any other write (a create, a like) as an entry of `event_outbox` (`_id` = the event id, a string: a primary-key
 *      insert, cheap on FerretDB too);
 *   2. the data write itself;
 *   3. the write succeeded: publish the event (the relay, event-relay.ts) and drop the entry (an outbox entry is
 *      deleted; a first attempt's claim that carried the event is deleted too, CLAIM_DROP_AFTER_MS after the commit,
 *      and any other claim keeps only the claim); it did not: the outbox entry is dropped, a claim given back by its
 *      holder takes its event with it; it threw: decide from the data at once while the writer still holds what made
 *      it the only writer (a create's id: settleThrown; a claim it did not give back: aroundClaim).
 *
 * A process that dies between 1 and 3 leaves the entry behind. The relay's sweep takes entries older than the longest
 * a write may run (EVENTS_SWEEP_AFTER_MS) and looks at the data: the record is there / at that version / gone, so the
 * write happened and the event is published; otherwise the write never happened and the entry is dropped. A claim's
 * event is judged by the claim's own rules too (claimedEventVerdict): a takeover of the claim means its write never
 * happened, and it is not given up before the claim's settledBy. Nothing acknowledged is lost (the data write precedes
 * the answer) and nothing is invented (an entry whose write did not happen is never published). The events service
 * stores events by id (a unique `_id`), so the push and the sweep may both publish one event: it is recorded once.
 */
import type { Collection, Db, Document } from 'mongodb';
import type { RecordedEvent } from '@platform/events';
import {
  CLAIM_CLOCK_MARGIN_MS,
  CLAIM_RETENTION_MS,
  claimEntry,
  takeoverOf,
  VERSION_CLAIMS_COLLECTION,
  type HeldClaim,
  type VersionClaim,
} from './version-claims';

export const EVENT_OUTBOX_COLLECTION = 'event_outbox';

/**
 * The sweep's read of entries older than it waits (`recordedAt` range, oldest first) and its look for a later deletion
 * of the same record (`check.subject`, `check.expect`), in the outbox and in the version claims (where only the claims
 * that carry an event have the fields: sparse). Part of every service's indexes (ensureIndexes): each runs a relay
 * over its own outbox, and the collections exist (with these) before their first write.
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
  {
    collection: VERSION_CLAIMS_COLLECTION,
    key: { recordedAt: 1 },
    options: { name: 'recordedAt_1', sparse: true },
  },
  {
    collection: VERSION_CLAIMS_COLLECTION,
    key: { deletionOf: 1 },
    options: { name: 'deletionOf_1', sparse: true },
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

/** The version claim an event rides in (absent: the event's own outbox entry). */
export type ClaimRef = Pick<HeldClaim, '_id' | 'attempt'>;

/** Where committed events go (the relay: push to the events service, then drop the entries). */
export interface EventPublisher {
  /**
   * Called once the write committed, with the claim that carries the event (none: an outbox entry); must not throw
   * (the sweep retries what it could not publish).
   */
  committed(pending: PendingEvent, claim?: ClaimRef): void;
  /** Fault injection for the crash tests: called between the data write and the publish. */
  afterWrite?(): void;
}

/** An entry the sweep found: an outbox entry, or a version claim carrying its write's event. */
export interface AbandonedEntry {
  pending: PendingEvent;
  /** The claim that carries it, and until when its holder may still write. */
  claim?: ClaimRef & { settledBy: Date; takeover: string };
}


export class EventOutbox {
  readonly entries: Collection<OutboxEntry>;
  readonly claims: Collection<VersionClaim>;

  constructor(
    readonly db: Db,
    private readonly publisher: EventPublisher,
  ) {
    this.entries = db.collection<OutboxEntry>(EVENT_OUTBOX_COLLECTION);
    this.claims = db.collection<VersionClaim>(VERSION_CLAIMS_COLLECTION);
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
    await this.entries.insertOne({
      _id: pending.event.id,
      event: pending.event,
      check: pending.check,
      recordedAt: new Date(),
    });
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
   * `write` under a version claim that already carries `pending` (inserted with the claim: version-claims.ts). As
   * `around`, without the entry's insert: published when the write committed; a write that matched nothing or was
   * refused gave its claim back (the event went with it) or left it for the sweep, which judges it by the claim.
   */
  async aroundClaim<R>(
    pending: PendingEvent,
    claim: HeldClaim,
    write: () => Promise<R>,
    committed: (result: R) => boolean,
  ): Promise<R> {
    let result: R;
    try {
      result = await write();
    } catch (error) {
      // A write that threw may still have happened (a lost answer, settled or not): published now when the data shows
      // it; otherwise the claim's own rules decide, in the sweep (a claim is not judged before its settledBy). Not when
      // its holder gave the claim back (refused, nothing sent): the event went with it, and another writer may hold
      // the version by now, whose write the data would show.
      if (!claim.released) {
        const entry = { pending, claim: { ...claim, settledBy: new Date(claim.settledBy) } };
        const verdict = await this.claimedEventVerdict(entry).catch(() => 'undecided' as const);
        if (verdict === true) this.publisher.committed(pending, { _id: claim._id, attempt: claim.attempt });
      }
      throw error;
    }
    if (committed(result)) {
      this.publisher.afterWrite?.();
      this.publisher.committed(pending, { _id: claim._id, attempt: claim.attempt });
    }
    return result;
  }

  /**
   * A write that threw may still have happened (a lost answer), or not (refused by a unique index, a cascade that failed
   * first). The writer still holds what made it the only writer (a create's new id), so the data says which right now:
   * publish or drop, before a retry of the write can make the same check hold (a create refused and retried). Where
   * the data cannot say yet (the database away), the entry stays for the sweep.
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

  /**
   * Drops the events claims carried, once published or known never to have happened. A first attempt's claim whose
   * write happened goes (the document moved past its version: nobody claims it again). Any other keeps its claim
   * until its retention, without the event: a takeover's claim says the attempt before it never wrote, and a claim
   * whose write never happened may still be what stops a second holder of its version.
   */
  async dropClaimed(claims: ReadonlyArray<ClaimRef & { happened: boolean }>): Promise<void> {
    const gone = claims.filter((c) => c.happened && c.attempt === 0).map((c) => c._id);
    if (gone.length === 1) await this.claims.deleteOne({ _id: gone[0]! });
    else if (gone.length > 1) await this.claims.deleteMany({ _id: { $in: gone } });
    for (const kept of claims.filter((c) => !(c.happened && c.attempt === 0))) {
      await this.claims.updateOne(
        { _id: kept._id },
        {
          $unset: { entry: '', deletionOf: '', recordedAt: '' },
          $set: { expiresAt: new Date(Date.now() + CLAIM_RETENTION_MS) },
        },
      );
    }
  }

  /** Entries recorded before `before`, oldest first (the sweep's work): the outbox's, then the claims'. */
  async abandoned(before: Date, limit: number): Promise<AbandonedEntry[]> {
    const entries = await this.entries
      .find({ recordedAt: { $lt: before } })
      .sort({ recordedAt: 1, _id: 1 })
      .limit(limit)
      .toArray();
    const claims = await this.claims
      .find({ recordedAt: { $lt: before } })
      .sort({ recordedAt: 1 })
      .limit(limit)
      .toArray();
    return [
      ...entries.map(({ event, check }) => ({ pending: { event, check } })),
      ...claims.flatMap((claim) => {
        const pending = claimEntry(claim);
        if (!pending) return [];
        return [
          {
            pending,
            claim: { _id: claim._id, attempt: claim.attempt, settledBy: claim.settledBy, takeover: takeoverOf(claim) },
          },
        ];
      }),
    ];
  }

  /**
   * Whether the write of a claim's event happened: not when the claim was taken over (its holder vanished before
   * writing); as its check says when that is true; `undecided` when the check says no but the holder may still write
   * (before its settledBy).
   */
  async claimedEventVerdict(
    entry: AbandonedEntry & { claim: NonNullable<AbandonedEntry['claim']> },
    now = Date.now(),
  ): Promise<boolean | 'deleted-since' | 'undecided'> {
    if (await this.claims.findOne({ _id: entry.claim.takeover }, { projection: { _id: 1 } })) return false;
    const verdict = await this.decide(entry.pending.check);
    if (verdict !== false) return verdict;
    return now >= entry.claim.settledBy.getTime() + CLAIM_CLOCK_MARGIN_MS ? false : 'undecided';
  }

  /**
   * A later deletion of the same subject still waiting here or in a claim (the sweep's look for a create or update that
   * was followed by one).
   */
  async pendingDeletionOf(subject: string): Promise<CommitCheck | null> {
    const entry = await this.entries.findOne({ 'check.subject': subject, 'check.expect': 'absent' });
    if (entry) return entry.check;
    const claim = await this.claims.findOne({ deletionOf: subject });
    return (claim && claimEntry(claim)?.check) ?? null;
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
