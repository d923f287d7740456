/**
 * Optimistic concurrency that holds on FerretDB v1 and MongoDB 7 alike, within the caller's deadline
 * (docs/decisions/0020-write-deadlines-and-claims.md; ADR 0008, ADR 0012).
 *
 * A document's `version` (absent = 0) moves from v to v+1 only by the writer whose insert of a claim
 * `{_id: "<resource>:<id>:v<v>"}` into `version_claims` succeeded (a string `_id` insert: exactly one of any number of
 * concurrent ones wins, on every server). Claims are kept, not deleted after the write: a version can be claimed once
 * ever (until the claim's retention ends, long after every writer that could have read v gave up), so the winner's
 * write needs no re-check and no one can slip in between; a retention sweep (a TTL index where the server honours one)
 * removes them off the write path. Each claim records when its holder's write has settled at the latest
 * (`settledBy`: the holder's deadline plus the commit bounds of its write step). A write's event rides in its claim,
 * inserted with it before the write (ADR 0023: one insert records both): the relay's sweep decides whether the write
 * committed by the document's version, which the claim made this writer's alone. A claim that carries an event has no
 * `expiresAt` until the event is published (the relay then drops a first attempt's claim once no writer that read the
 * version before its write can still claim it: CLAIM_DROP_AFTER_MS) or known never to have happened.
 *
 * One write, in round trips: the document is read once (the caller's own read for authorisation is passed in as
 * `current`), the claim inserted, the write sent with a time bound (`findOneAndUpdate`/`findOneAndDelete`: FerretDB v1
 * honours maxTimeMS only on find and findAndModify). Before each step the deadline is checked: no step starts after
 * it. A conditional writer (If-Match) that finds another version or loses the claim gets 412. An unconditional one
 * backs off and reads again, within the deadline, then answers 409 with Retry-After: it never overwrites a change it
 * did not see pass.
 *
 * Failures after the claim: a server that answered an error did not apply the write; the holder then gives its claim
 * up (deletes it) while its settledBy is still ahead, so the next writer need not wait. A write whose answer never came
 * (a broken connection, a client timeout) is settled by a read once its commit bound has passed: the version moved (committed: the write's answer) or did not (nothing
 * committed, nothing will). If even that cannot be learned, OUTCOME_UNKNOWN. A claim whose holder vanished (a crash)
 * is taken over once its settledBy has passed (plus a clock margin between replicas) by inserting the next attempt,
 * `<claim>~<n>`: again one insert decides, and nobody ever deletes a claim that is not their own.
 *
 * The written filter still names the version: it costs nothing where the key is an integer `_id` (FerretDB v1 scans
 * for it either way, MongoDB reads the one document by the `_id` index), and it keeps a takeover or a replica of the
 * previous release (which deleted its claims) from writing over a version that moved.
 */
import type { Collection, Db, Document, Filter, MatchKeysAndValues } from 'mongodb';
import { currentDeadline, type Deadline } from '@platform/contracts';
import { AppError, outcomeUnknown } from '@platform/errors';
import { isDuplicateKeyError, isWriteConcernError, writeMayHaveApplied } from './mongo-errors';
import { backoffMs, sleep } from './write-steps';
import { documentTurn } from './write-turns';
import type { RecordedEvent } from '@platform/events';
import type { CommitCheck, EventOutbox, PendingEvent, WriteEvent } from './event-outbox';

export const VERSION_CLAIMS_COLLECTION = 'version_claims';

/** Expires kept claims where the server has TTL indexes (MongoDB); part of every service's indexes (ensureIndexes). */
export const VERSION_CLAIMS_TTL_INDEX = {
  collection: VERSION_CLAIMS_COLLECTION,
  key: { expiresAt: 1 },
  options: { name: 'expiresAt_ttl', expireAfterSeconds: 0 },
} as const;
/** How long a claim is kept: far beyond any writer's deadline; what a recovery pass may look back on. */
export const CLAIM_RETENTION_MS = 60 * 60 * 1000;
/** Replicas' clocks may differ by this much: a claim is taken over only this long after its settledBy. */
export const CLAIM_CLOCK_MARGIN_MS = 2_000;
/**
 * A write claims its version only from a read younger than this (else it reads again first), and a claim whose write
 * committed is deleted (with events on: the relay's drop, ADR 0023) no sooner than CLAIM_DROP_AFTER_MS after the
 * commit. Together they keep a deleted claim from being won again by a writer that read the version before that
 * commit: such a writer claims within CLAIM_FRESH_MS of its read, so before the drop, and loses to the claim that is
 * still there. The age is checked before every send of the insert (a busy database's retries included), and the
 * 2 s between the two bounds is for the insert on its way. (Durations on each process's own clock: the replicas' clocks
 * need not agree.) A document handed in as `current` is as old as its `currentReadAt` says; without one it counts as
 * aged (read again in the turn). With a write deadline of 5 s (the default) only a write that queued for more than 3 s
 * reads again; a longer deadline makes that more often, never unsafe.
 */
export const CLAIM_FRESH_MS = 3_000;
export const CLAIM_DROP_AFTER_MS = 5_000;
/** Claim attempts (takeovers) of one version before giving up: each needs a holder that vanished. */
const MAX_TAKEOVERS = 5;
/** The read that settles an unknown outcome gets at most this (the caller's wait has 1.5 s of slack). */
const SETTLE_READ_MS = 500;
/** And waits this long past the write's settledBy: a server stops a command at its maxTimeMS a little late. */
const SETTLE_MARGIN_MS = 250;

export interface VersionClaim {
  _id: string;
  resource: string;
  recordId: number | string;
  version: number;
  /** 0 for the first claim of the version, n for the n-th takeover. */
  attempt: number;
  claimedAt: Date;
  /** The holder's write has committed or aborted by then: its deadline plus the commit bound. */
  settledBy: Date;
  /**
   * Retention: the sweep (or the TTL index) removes the claim after this. Absent while the claim carries its write's
   * event (ADR 0023): no retention may remove an event that is not published yet.
   */
  expiresAt?: Date;
  /**
   * The write's pending event and its commit check (the outbox entry of a versioned write, until it is published),
   * as JSON text: on FerretDB v1 every query but one by `_id` decodes each document of the collection in Go, and the
   * relay's drops and sweeps read the claims so; a nested event took three times as long to decode as this one string
   * (150 claims: 45 ms against 15 ms, a claim without an event 11 ms). `claimEntry` reads it back.
   */
  entry?: string;
  /** A deletion's subject (`items:5`): the sweep's look for a later deletion of a record (pendingDeletionOf). */
  deletionOf?: string;
  /** When the event was recorded: the sweep takes what is older than a write may last. */
  recordedAt?: Date;
}

/** A claim's pending event and commit check, from its `entry` (JSON: the event's time is a Date again). */
export function claimEntry(claim: Pick<VersionClaim, 'entry'>): PendingEvent | undefined {
  if (claim.entry === undefined) return undefined;
  const { event, check } = JSON.parse(claim.entry) as { event: RecordedEvent; check: CommitCheck };
  return { event: { ...event, occurredAt: new Date(event.occurredAt) }, check };
}

/** A document that carries the write counter. */
export interface Versioned {
  version?: number;
}

export const versionOf = (document: Versioned): number => document.version ?? 0;

/** Matches the document only while it is still at `version` (documents written before versions count as 0). */
export const atVersion = <T extends Versioned>(version: number): Filter<T> =>
  (version === 0 ? { $or: [{ version: 0 }, { version: { $exists: false } }] } : { version }) as Filter<T>;

/** Time bounds for one database command of a write: `maxTimeMS`, as the driver takes it. */
export interface StepBound {
  maxTimeMS: number;
}

export interface VersionedWrite<T extends Versioned, R> {
  db: Db;
  /** Names the collection in claim ids, e.g. `items`. */
  resource: string;
  id: number | string;
  /** The version the client last saw (If-Match); null: unconditional (still serialised through the claim). */
  expectedVersion: number | null | undefined;
  /** The document as the caller already read it (its authorisation); the first attempt then reads nothing. */
  current?: T | null | undefined;
  /** When the caller sent the read of `current` (Date.now() before it, CLAIM_FRESH_MS); absent: counts as aged. */
  currentReadAt?: number | undefined;
  read: (bound: StepBound) => Promise<T | null>;
  /**
   * Writes version `from + 1` only if the document is still at `from` (filter with atVersion), within `bound`;
   * resolves undefined when it matched nothing (the loop then reads again).
   */
  write: (from: number, current: T, bound: StepBound) => Promise<R | undefined>;
  /**
   * What must happen under the claim before the write, once (a delete's cascade to other services): outside the
   * process's turn on the database, which `write` takes.
   */
  prepare?: ((current: T) => Promise<void>) | undefined;
  /**
   * What a document read after an unknown outcome settled shows: the write's result (it committed), `not-applied`
   * (for an update: still at `from`; for a delete: still there at `from`), or `unknown` (it cannot tell).
   */
  settled: (from: number, after: T | null) => Settled<R>;
  /**
   * The write's event (ADR 0023): recorded in the claim, before the write, and published once the write returned
   * something; `pending` gets the version the write starts from.
   */
  event?: { outbox: EventOutbox; pending: (from: number, current: T) => PendingEvent } | undefined;
}

export type Settled<R> = { committed: R } | 'not-applied' | 'unknown';

export const preconditionFailed = (): AppError =>
  new AppError(
    'PRECONDITION_FAILED',
    'The resource has changed since that version; fetch it again and retry',
  );

/** Others kept the record busy until the deadline; nothing of this write was committed. */
export const beingChanged = (): AppError =>
  new AppError('CONFLICT', 'The resource is being changed by others; retry', { headers: { 'retry-after': '1' } });

const claimId = (resource: string, id: number | string, version: number, attempt: number): string =>
  `${resource}:${id}:v${version}${attempt === 0 ? '' : `~${attempt}`}`;

/**
 * The claim a takeover of `claim` inserts: it exists only when the holder of `claim` vanished without writing (a
 * takeover needs the document still at that version past the holder's settledBy), so its presence says that write
 * never happened.
 */
export const takeoverOf = (claim: Pick<VersionClaim, 'resource' | 'recordId' | 'version' | 'attempt'>): string =>
  claimId(claim.resource, claim.recordId, claim.version, claim.attempt + 1);

/** Holding the claim of one version: what the holder gives up, if it must, while others still wait on it. */
export interface HeldClaim {
  _id: string;
  attempt: number;
  settledBy: number;
  /** The claim a takeover of this one would insert (takeoverOf). */
  takeover: string;
  /** Set once its holder gave it back (deleted it, with the event it carried). */
  released?: boolean;
  /** The write's event it carries. */
  pending?: PendingEvent;
}

class ClaimBook {
  private readonly claims: Collection<VersionClaim>;

  constructor(
    private readonly db: Db,
    private readonly resource: string,
    private readonly id: number | string,
  ) {
    this.claims = db.collection<VersionClaim>(VERSION_CLAIMS_COLLECTION);
  }

  /**
   * Claims `version` (attempt `attempt`) as read at `readAt`; null when another writer holds it, `aged` when that read
   * is too old to claim from (CLAIM_FRESH_MS; nothing was inserted). The insert is bounded by the deadline
   * (a claim that lands after the caller gave up is a claim nobody holds: it is taken over after its settledBy).
   * `pending`, the write's event, is recorded in the same document (one insert: the claim is the outbox entry).
   */
  async claim(
    version: number,
    attempt: number,
    deadline: Deadline,
    pending: PendingEvent | undefined,
    readAt: number,
  ): Promise<HeldClaim | null | 'aged'> {
    const now = Date.now();
    const claim: VersionClaim = {
      _id: claimId(this.resource, this.id, version, attempt),
      resource: this.resource,
      recordId: this.id,
      version,
      attempt,
      claimedAt: new Date(now),
      settledBy: new Date(deadline.settledBy()),
      ...(pending
        ? {
            entry: JSON.stringify({ event: pending.event, check: pending.check }),
            ...(pending.check.expect === 'absent' ? { deletionOf: pending.check.subject } : {}),
            recordedAt: new Date(now),
          }
        : { expiresAt: new Date(now + CLAIM_RETENTION_MS) }),
    };
    // Never from a read older than CLAIM_FRESH_MS: the caller reads again.
    if (Date.now() - readAt >= CLAIM_FRESH_MS) return 'aged';
    try {
      await this.claims.insertOne(claim, { maxTimeMS: Math.max(1, deadline.remainingMs()) });
    } catch (error) {
      if (isDuplicateKeyError(error)) return null;
      throw error;
    }
    return {
      _id: claim._id,
      attempt,
      settledBy: claim.settledBy.getTime(),
      takeover: takeoverOf(claim),
      ...(pending ? { pending } : {}),
    };
  }

  /**
   * What to do about `version` after losing its claim more than once: the attempt to insert (the first free one after
   * attempts whose holders are past their settledBy plus the clock margin: they vanished), or until when the holder of
   * the live attempt may still write (wait; no need to look again before then).
   */
  async nextAttempt(version: number, deadline: Deadline): Promise<{ attempt: number } | { heldUntil: number }> {
    for (let attempt = 0; attempt <= MAX_TAKEOVERS; attempt += 1) {
      const held = await this.claims.findOne(
        { _id: claimId(this.resource, this.id, version, attempt) },
        { projection: { settledBy: 1 }, maxTimeMS: Math.max(1, deadline.remainingMs()) },
      );
      if (!held) return { attempt };
      const heldUntil = held.settledBy.getTime() + CLAIM_CLOCK_MARGIN_MS;
      if (heldUntil > Date.now()) return { heldUntil };
    }
    return { heldUntil: deadline.startBy };
  }

  /**
   * Gives a held claim up: only its holder does, only when its write did not and will not happen, and only before its
   * settledBy (after it, a takeover may already hold the next attempt; the claim then stays for the sweep). The event
   * it carries goes with it.
   */
  async release(held: HeldClaim): Promise<void> {
    if (Date.now() >= held.settledBy) return;
    try {
      await this.claims.deleteOne({ _id: held._id }, { maxTimeMS: Math.max(1, held.settledBy - Date.now()) });
      held.released = true;
    } catch {
      // Left in place: it is taken over after its settledBy, and removed by the retention sweep.
    }
  }
}

/**
 * Runs one versioned write within the request's deadline; resolves null when the document does not exist. Throws
 * PRECONDITION_FAILED (a conditional writer met another version), CONFLICT with Retry-After (others kept it busy until
 * the deadline), SERVICE_UNAVAILABLE with Retry-After (the deadline passed or the database refused: nothing committed)
 * or OUTCOME_UNKNOWN.
 */
export async function writeVersioned<T extends Versioned, R>(spec: VersionedWrite<T, R>): Promise<R | null> {
  const deadline = currentDeadline();
  // The writers of one record in this process take turns (write-turns.ts): none loses the claim to a neighbour. One
  // that waited reads the record again: what it read before may be a version the one before it replaced. Still waiting
  // at the deadline: others kept the record busy (409).
  return documentTurn(`${spec.db.databaseName}\0${spec.resource}\0${spec.id}`, deadline, beingChanged, (waited) =>
    writeInTurn(spec, deadline, waited ? undefined : spec.current, spec.currentReadAt),
  );
}

async function writeInTurn<T extends Versioned, R>(
  spec: VersionedWrite<T, R>,
  deadline: Deadline,
  read: T | null | undefined,
  readBy: number | undefined,
): Promise<R | null> {
  const book = new ClaimBook(spec.db, spec.resource, spec.id);
  const conditional = spec.expectedVersion !== null && spec.expectedVersion !== undefined;
  let current = read;
  /** When `current` was read (before the read was sent); a caller's read without a time counts as aged. */
  let readAt = readBy ?? Number.NEGATIVE_INFINITY;
  /** The claim of `version` lost `times` times in a row; a holder seen alive until `heldUntil` is not looked up again. */
  let lost: { version: number; times: number; heldUntil: number } | undefined;
  for (let round = 0; ; round += 1) {
    // Past the deadline after losing the claim to others (the backoff or the next read ran over it): they kept the
    // record busy, which is what the client is told (409), not that the service was unavailable.
    if (lost && deadline.expired()) throw beingChanged();
    deadline.ensureTime();
    if (current === undefined) {
      readAt = Date.now();
      current = await spec.read({ maxTimeMS: Math.max(1, deadline.remainingMs()) });
    }
    if (!current) return null;
    const from = versionOf(current);
    if (conditional && spec.expectedVersion !== from) throw preconditionFailed();

    // Lost twice on one version: maybe its holder vanished; find the attempt to take over, or how long to wait.
    let attempt: number | null = 0;
    if (lost?.version === from && lost.times >= 2 && Date.now() >= lost.heldUntil) {
      const next = await book.nextAttempt(from, deadline);
      if ('attempt' in next) attempt = next.attempt;
      else {
        attempt = null;
        lost.heldUntil = next.heldUntil;
      }
    }
    // Others kept the record busy (a lost claim) and the time ran out meanwhile: 409, as above; nothing was sent.
    if (lost && deadline.expired()) throw beingChanged();
    deadline.ensureTime();
    const read = current;
    // The claim (carrying the write's event), then the write (after a delete's cascade, `prepare`, when it has one).
    const claimAndWrite = async (): Promise<
      { held: false; moved?: T | null } | { held: true; written: R | undefined }
    > => {
      if (attempt === null) return { held: false };
      const claimed = attempt;
      let base = read;
      // A read that aged (a slow caller, a wait for the record's turn) and every takeover (its holder may have written
      // after the read that judged it vanished) is read again, and only a version that is still the document's is
      // claimed (CLAIM_FRESH_MS).
      const fresh = await (async (): Promise<{ moved: T | null } | { held: HeldClaim | null }> => {
        let again = claimed > 0 || Date.now() - readAt >= CLAIM_FRESH_MS;
        for (;;) {
          if (again) {
            readAt = Date.now();
            const now = await spec.read({ maxTimeMS: Math.max(1, deadline.remainingMs()) });
            if (!now || versionOf(now) !== from) return { moved: now };
            base = now;
            // No write step after the deadline, the claim included.
            deadline.ensureTime();
          }
          const held = await book.claim(from, claimed, deadline, spec.event?.pending(from, base), readAt);
          if (held !== 'aged') return { held };
          again = true;
        }
      })();
      if ('moved' in fresh) return { held: false, moved: fresh.moved };
      const held = fresh.held;
      if (!held) return { held: false };
      const holding = () => writeHolding(spec, book, held, from, base, deadline);
      const written = held.pending
        ? await spec.event!.outbox.aroundClaim(held.pending, held, holding, (result) => result !== undefined)
        : await holding();
      return { held: true, written };
    };
    const outcome = await claimAndWrite();
    if (!outcome.held && outcome.moved !== undefined) {
      // The document moved (or went) since it was read: nothing was claimed; go on from what it is now.
      current = outcome.moved;
      continue;
    }
    if (!outcome.held) {
      if (conditional) throw preconditionFailed();
      lost =
        lost?.version === from
          ? { ...lost, times: lost.times + 1 }
          : { version: from, times: 1, heldUntil: 0 };
      await sleep(backoffMs(round, deadline));
      if (deadline.expired()) throw beingChanged();
      current = undefined;
      continue;
    }

    if (outcome.written !== undefined) return outcome.written;
    // Matched nothing: the document moved, went away or left the writer's scope; read again (conditional: 412/404).
    current = undefined;
  }
}

/** The write step(s) under a held claim, never after the deadline. */
async function writeHolding<T extends Versioned, R>(
  spec: VersionedWrite<T, R>,
  book: ClaimBook,
  held: HeldClaim,
  from: number,
  current: T,
  deadline: Deadline,
): Promise<R | undefined> {
  if (deadline.expired()) {
    await book.release(held);
    deadline.ensureTime();
  }
  try {
    if (spec.prepare) {
      await spec.prepare(current);
      // The cascade may have taken a while: the write itself is a write step like any other.
      deadline.ensureTime();
    }
    const written = await spec.write(from, current, { maxTimeMS: deadline.commitMs });
    if (written === undefined) await book.release(held);
    return written;
  } catch (error) {
    // Every attempt of the step (the driver retries a retryable write once) was sent before its error came back,
    // each bounded by the commit timeout: after that bound from now, the outcome is final.
    // Applied on the primary, majority unconfirmed: a read cannot tell whether it will stand.
    if (isWriteConcernError(error)) throw outcomeUnknown(error);
    if (writeMayHaveApplied(error)) return settle(spec, Date.now() + deadline.commitMs, from, error);
    await book.release(held);
    throw error;
  }
}

/**
 * A write step that was sent and whose answer never came: once its commit bound has passed the database has applied
 * it or never will, and a read of the document tells which. Nothing else may write this version meanwhile (the claim
 * is held), and a takeover waits for the clock margin after settledBy, so the read sees our write or none.
 */
async function settle<T extends Versioned, R>(
  spec: VersionedWrite<T, R>,
  settledBy: number,
  from: number,
  cause: unknown,
): Promise<R> {
  await sleep(Math.max(0, settledBy + SETTLE_MARGIN_MS - Date.now()));
  let after: T | null;
  try {
    after = await spec.read({ maxTimeMS: SETTLE_READ_MS });
  } catch {
    throw outcomeUnknown(cause);
  }
  const result = spec.settled(from, after);
  if (result === 'unknown') throw outcomeUnknown(cause);
  if (result !== 'not-applied') return result.committed;
  // Not applied, and past its commit bound it never will be: the claim stays for a takeover (it is past settledBy).
  throw new AppError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable; nothing was changed, retry', {
    cause,
    headers: { 'retry-after': '1' },
  });
}

/** A collection whose documents carry `version`, keyed by integer `_id`; claim ids are named after the collection. */
export interface VersionedCollection<T extends Versioned & { _id: number }> {
  db: Db;
  collection: Collection<T>;
}

/** `{_id, ...scope}` at `version`: `$and` keeps a scope's own `$or` apart from atVersion's. */
const scopedAt = <T extends Versioned & { _id: number }>(id: number, scope: Filter<T>, version: number): Filter<T> =>
  (Object.keys(scope).length === 0
    ? { _id: id, ...atVersion<T>(version) }
    : { _id: id, $and: [scope, atVersion<T>(version)] }) as Filter<T>;

/** What a versioned update or delete may add: the document as already read (authorisation), and its event. */
export interface VersionedOptions<T> {
  current?: T | null | undefined;
  /** When the read of `current` was sent (Date.now() just before it): see CLAIM_FRESH_MS. */
  currentReadAt?: number | undefined;
  event?: WriteEvent<T> | undefined;
}

/**
 * Sets `changes` as the next version of document `id` (one matching `scope` too, e.g. its owner) and returns it after
 * the write; null when there is no such document; PRECONDITION_FAILED when `expectedVersion` is given and stale.
 * `changes` may be computed from the version being replaced (a counter moved on under the claim: no lost `$inc`).
 */
export function updateVersioned<T extends Versioned & { _id: number } & Document>(
  target: VersionedCollection<T>,
  id: number,
  changes: MatchKeysAndValues<T> | ((current: T) => MatchKeysAndValues<T>),
  expectedVersion?: number | null,
  scope: Filter<T> = {},
  options: VersionedOptions<T> = {},
): Promise<T | null> {
  const { db, collection } = target;
  const name = collection.collectionName;
  const changesOf = (current: T) => (typeof changes === 'function' ? changes(current) : changes);
  const event = options.event;
  return writeVersioned({
    db,
    resource: name,
    id,
    expectedVersion,
    current: options.current,
    currentReadAt: options.currentReadAt,
    read: (bound) => collection.findOne({ _id: id, ...scope } as Filter<T>, bound) as Promise<T | null>,
    // The record after a `$set` of `changes` at version from + 1 is known before the write: the event carries it.
    event: event && {
      outbox: event.outbox,
      pending: (from, current) => ({
        event: event.of({ ...current, ...changesOf(current), version: from + 1 } as T),
        check: {
          collection: name,
          filter: { _id: id },
          expect: { versionAtLeast: from + 1 },
          subject: `${name}:${id}`,
        },
      }),
    },
    write: async (from, current, bound) =>
      ((await collection.findOneAndUpdate(
        scopedAt<T>(id, scope, from),
        { $set: { ...changesOf(current), version: from + 1 } as MatchKeysAndValues<T> },
        { returnDocument: 'after', ...bound },
      )) as T | null) ?? undefined,
    // Gone since: ours may have committed before a delete; unknown.
    settled: (from, after) => (!after ? 'unknown' : versionOf(after) > from ? { committed: after } : 'not-applied'),
  });
}

/**
 * Deletes document `id` (matching `scope`; at `expectedVersion` when given) and resolves whether it existed.
 * `before` runs under the claim, first: a cascade that removes what others hold for the document happens only when
 * the precondition holds, and no other writer changes the document meanwhile.
 */
export async function deleteVersioned<T extends Versioned & { _id: number } & Document>(
  target: VersionedCollection<T>,
  id: number,
  expectedVersion?: number | null,
  scope: Filter<T> = {},
  before?: (current: T) => Promise<void>,
  options: VersionedOptions<T> = {},
): Promise<boolean> {
  const { db, collection } = target;
  const name = collection.collectionName;
  const event = options.event;
  const deleted = await writeVersioned({
    db,
    resource: name,
    id,
    expectedVersion,
    current: options.current,
    currentReadAt: options.currentReadAt,
    read: (bound) => collection.findOne({ _id: id, ...scope } as Filter<T>, bound) as Promise<T | null>,
    event: event && {
      outbox: event.outbox,
      pending: (from, current) => ({
        event: event.of(current),
        check: {
          collection: name,
          filter: { _id: id },
          expect: 'absent',
          subject: `${name}:${id}`,
          fromVersion: from,
        },
      }),
    },
    prepare: before,
    write: async (from, _current: T, bound) =>
      (await collection.findOneAndDelete(scopedAt<T>(id, scope, from), bound)) === null ? undefined : true,
    settled: (from, after) => (after === null ? { committed: true } : versionOf(after) === from ? 'not-applied' : 'unknown'),
  });
  return deleted === true;
}
