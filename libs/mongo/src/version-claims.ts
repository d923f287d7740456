/**
 * Optimistic concurrency that holds on FerretDB v1 and MongoDB 7 alike (ADR 0008, ADR 0012): a document's `version`
 * (absent = 0) moves from v to v+1 only by the writer whose insert of `{_id: "<resource>:<id>:v<v>"}` into
 * `version_claims` succeeded. `updateOne({_id, version: v})` alone is not enough: FerretDB v1 evaluates the condition of
 * concurrent writers against the same old document, so several would win. A conditional writer (expected version) that
 * loses the claim, or finds another version, gets 412; an unconditional one re-reads and claims the next version, so it
 * never overwrites a change it did not see pass. The winner removes its claim once the document is at v+1 (a late
 * claimant of v then matches nothing and retries); a claim left by a process that died mid-write is taken over after
 * STALE_CLAIM_MS.
 */
import type { Collection, Db, Document, Filter, MatchKeysAndValues } from 'mongodb';
import { AppError } from '@platform/errors';
import { isDuplicateKeyError } from './mongo-errors';
import type { EventOutbox, PendingEvent, WriteEvent } from './event-outbox';

export const VERSION_CLAIMS_COLLECTION = 'version_claims';
const STALE_CLAIM_MS = 30_000;
const MAX_ATTEMPTS = 100;

interface VersionClaim {
  _id: string;
  claimedAt: Date;
}

/** A document that carries the write counter. */
export interface Versioned {
  version?: number;
}

export const versionOf = (document: Versioned): number => document.version ?? 0;

/** Matches the document only while it is still at `version` (documents written before versions count as 0). */
export const atVersion = <T extends Versioned>(version: number): Filter<T> =>
  (version === 0 ? { $or: [{ version: 0 }, { version: { $exists: false } }] } : { version }) as Filter<T>;

export interface VersionedWrite<T extends Versioned, R> {
  db: Db;
  /** Names the collection in claim ids, e.g. `items`. */
  resource: string;
  id: number | string;
  /** The version the client last saw (If-Match); null: unconditional (still serialised through the claim). */
  expectedVersion: number | null | undefined;
  read: () => Promise<T | null>;
  /**
   * Writes version `from + 1` only if the document is still at `from` (filter with atVersion); resolves undefined
   * when it no longer was (the loop then reads again).
   */
  write: (from: number, current: T) => Promise<R | undefined>;
  /**
   * The write's event (ADR 0023): recorded in the outbox under the claim, before the write, and published once the
   * write returned something; `pending` gets the version the write starts from.
   */
  event?: { outbox: EventOutbox; pending: (from: number, current: T) => PendingEvent } | undefined;
}

export const preconditionFailed = (): AppError =>
  new AppError(
    'PRECONDITION_FAILED',
    'The resource has changed since that version; fetch it again and retry',
  );

/** Runs one versioned write; resolves null when the document does not exist. */
export async function writeVersioned<T extends Versioned, R>(spec: VersionedWrite<T, R>): Promise<R | null> {
  const claims = spec.db.collection<VersionClaim>(VERSION_CLAIMS_COLLECTION);
  const conditional = spec.expectedVersion !== null && spec.expectedVersion !== undefined;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const current = await spec.read();
    if (!current) return null;
    const from = versionOf(current);
    if (conditional && spec.expectedVersion !== from) throw preconditionFailed();
    const claimId = `${spec.resource}:${spec.id}:v${from}`;
    try {
      await claims.insertOne({ _id: claimId, claimedAt: new Date() });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      if (conditional) throw preconditionFailed();
      // Someone else is moving it past `from`: wait a little, read again. A claim abandoned mid-write is taken over.
      await claims.deleteOne({ _id: claimId, claimedAt: { $lt: new Date(Date.now() - STALE_CLAIM_MS) } });
      await new Promise((resolve) => setTimeout(resolve, Math.min(2 + attempt * 3, 50)));
      continue;
    }
    try {
      const event = spec.event;
      const written = event
        ? await event.outbox.around(
            event.pending(from, current),
            () => spec.write(from, current),
            (result) => result !== undefined,
          )
        : await spec.write(from, current);
      if (written !== undefined) return written;
      if (conditional) throw preconditionFailed();
    } finally {
      await claims.deleteOne({ _id: claimId });
    }
  }
  throw new AppError('CONFLICT', 'The resource is being changed by others; retry');
}

/** A collection whose documents carry `version`, keyed by integer `_id`; claim ids are named after the collection. */
export interface VersionedCollection<T extends Versioned & { _id: number }> {
  db: Db;
  collection: Collection<T>;
}

/** `{_id, ...scope}` at `version`: `$and` keeps a scope's own `$or` apart from atVersion's. */
const scopedAt = <T extends Versioned & { _id: number }>(
  id: number,
  scope: Filter<T>,
  version: number,
): Filter<T> =>
  (Object.keys(scope).length === 0
    ? { _id: id, ...atVersion<T>(version) }
    : { _id: id, $and: [scope, atVersion<T>(version)] }) as Filter<T>;

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
  event?: WriteEvent<T>,
): Promise<T | null> {
  const { db, collection } = target;
  const name = collection.collectionName;
  const changesOf = (current: T) => (typeof changes === 'function' ? changes(current) : changes);
  return writeVersioned({
    db,
    resource: name,
    id,
    expectedVersion,
    read: () => collection.findOne({ _id: id, ...scope } as Filter<T>) as Promise<T | null>,
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
    write: async (from, current) =>
      ((await collection.findOneAndUpdate(
        scopedAt<T>(id, scope, from),
        {
          $set: {
            ...changesOf(current),
            version: from + 1,
          } as MatchKeysAndValues<T>,
        },
        { returnDocument: 'after' },
      )) as T | null) ?? undefined,
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
  event?: WriteEvent<T>,
): Promise<boolean> {
  const { db, collection } = target;
  const name = collection.collectionName;
  const deleted = await writeVersioned({
    db,
    resource: name,
    id,
    expectedVersion,
    read: () => collection.findOne({ _id: id, ...scope } as Filter<T>) as Promise<T | null>,
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
    write: async (from, current: T) => {
      await before?.(current);
      return (await collection.deleteOne(scopedAt<T>(id, scope, from))).deletedCount === 1 ? true : undefined;
    },
  });
  return deleted === true;
}
