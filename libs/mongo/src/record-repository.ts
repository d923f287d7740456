/**
 * One repository for the integer-keyed records of the subgraphs (items, posts, comments): ids that are never reused
 * (nextSequenceValue), batched reads, listings from a validated plan, and every update and delete through
 * writeVersioned, so each record that uses it carries `version` and honours If-Match by construction (ADR 0012).
 * A resource's own repository extends it only with what is its own (indexes, cascades by parent).
 */
import type { Collection, Db, Filter, MatchKeysAndValues, OptionalUnlessRequiredId, Sort } from 'mongodb';
import type { MongoListPlan } from '@platform/listing';
import { nextSequenceValue } from './counters';
import { findByIds } from './find-by-ids';
import {
  deleteVersioned,
  updateVersioned,
  type Versioned,
  type VersionedCollection,
  type VersionedOptions,
} from './version-claims';
import type { WriteEvent } from './event-outbox';
import { insertWithinDeadline } from './write-steps';

/** A record this repository keeps: an integer `_id`, a write counter and the time of its last change. */
export interface VersionedRecord extends Versioned {
  _id: number;
  updatedAt: Date;
}

/** The fields a write may change (never the id, the counter or the timestamps: the repository sets those). */
export type RecordChanges<T extends VersionedRecord> = Partial<
  Omit<T, '_id' | 'version' | 'createdAt' | 'updatedAt'>
>;

/** What a listing runs: the plan @platform/listing validated (operators from its allowlist, values typed). */
export type RecordListPlan = Pick<MongoListPlan, 'filter' | 'sort' | 'skip' | 'limit'>;

/**
 * One collection of integer-keyed, versioned documents whose ids come from its own sequence: what every repository
 * of such documents holds (RecordRepository below; the users and API keys, whose documents differ).
 */
export class SequencedCollection<T extends Versioned & { _id: number }> {
  protected readonly collection: Collection<T>;
  /** The collection as updateVersioned and deleteVersioned take it. */
  protected readonly versioned: VersionedCollection<T>;

  /** `name` is the collection, the id sequence and the prefix of version claims alike. */
  constructor(
    protected readonly db: Db,
    readonly name: string,
  ) {
    this.collection = db.collection<T>(name);
    this.versioned = { db, collection: this.collection };
  }

  /** An id no document ever had (unique even under concurrency: see nextSequenceValue: claimed, never reused). */
  nextId(): Promise<number> {
    return nextSequenceValue(this.db, this.name);
  }

  /**
   * Inserts `document` as a write step of the request (ADR 0020: not after its deadline), with its event recorded
   * around the insert when given (ADR 0023). `settle` runs after the insert and before the event is published: a check
   * that may undo the insert and throw (a racing deletion of the parent), so a refused create publishes nothing.
   */
  protected async insertRecorded(
    document: T,
    event?: WriteEvent<T>,
    settle?: (document: T) => Promise<void>,
  ): Promise<T> {
    const insert = async () => {
      await insertWithinDeadline(this.collection, document as OptionalUnlessRequiredId<T>);
      await settle?.(document);
      return document;
    };
    if (!event) return insert();
    const subject = `${this.name}:${document._id}`;
    return event.outbox.around(
      {
        event: event.of(document),
        check: { collection: this.name, filter: { _id: document._id }, expect: 'present', subject },
      },
      insert,
    );
  }
}

export class RecordRepository<T extends VersionedRecord> extends SequencedCollection<T> {
  /** Allocates the next id and inserts the document built with it. */
  async insertWithNewId(
    build: (id: number) => T,
    event?: WriteEvent<T>,
    settle?: (document: T) => Promise<void>,
  ): Promise<T> {
    return this.insertRecorded(build(await this.nextId()), event, settle);
  }

  findById(id: number): Promise<T | null> {
    return this.collection.findOne(this.byId(id)) as Promise<T | null>;
  }

  findByIds(ids: readonly number[]): Promise<T[]> {
    return findByIds(this.collection, ids);
  }

  /** One query for the records of many parents (owners, authors, posts), in parent then id order; callers group and cap. */
  findByParents(field: keyof T & string, parentIds: readonly number[]): Promise<T[]> {
    return this.collection
      .find({ [field]: { $in: [...parentIds] } } as Filter<T>)
      .sort({ [field]: 1, _id: 1 })
      .toArray() as Promise<T[]>;
  }

  /** A page of a listing; `within` (e.g. `{ postId }`) narrows it to one parent's records. */
  list(plan: RecordListPlan, within?: Filter<T>): Promise<T[]> {
    return this.collection
      .find(this.scoped(plan.filter, within))
      .sort(plan.sort as Sort)
      .skip(plan.skip)
      .limit(plan.limit)
      .toArray() as Promise<T[]>;
  }

  count(filter: Record<string, unknown>, within?: Filter<T>): Promise<number> {
    return this.collection.countDocuments(this.scoped(filter, within));
  }

  /**
   * Applies the changes as the next version and returns the record after them; null when it does not exist;
   * PRECONDITION_FAILED when `expectedVersion` is given and the record is at another version (see writeVersioned).
   * `options`: the record as the caller read it (no second read), and the write's event.
   */
  update(
    id: number,
    changes: RecordChanges<T>,
    now: Date,
    expectedVersion?: number | null,
    options: VersionedOptions<T> = {},
  ): Promise<T | null> {
    return updateVersioned(
      this.versioned,
      id,
      { ...changes, updatedAt: now } as MatchKeysAndValues<T>,
      expectedVersion,
      {},
      options,
    );
  }

  /**
   * Deletes the record (at `expectedVersion` when given); false when it does not exist. `cascade` runs once the claim
   * on the record's version is held and before the record goes: a stale If-Match changes nothing, and a cascade that
   * fails half-way leaves the record in place, so retrying the delete completes it.
   */
  deleteById(
    id: number,
    expectedVersion?: number | null,
    cascade?: () => Promise<void>,
    options: VersionedOptions<T> = {},
  ): Promise<boolean> {
    return deleteVersioned(this.versioned, id, expectedVersion, {}, cascade && (() => cascade()), options);
  }

  /** Removes a record with no version check: only for undoing an insert that lost a race (DeletionGuard). */
  async discard(id: number): Promise<void> {
    await this.collection.deleteOne(this.byId(id));
  }

  /** Bulk removal by a parent (a deleted user's or post's records); no version check, the parent is gone. */
  async deleteWhere(filter: Filter<T>): Promise<number> {
    return (await this.collection.deleteMany(filter)).deletedCount;
  }

  async idsWhere(filter: Filter<T>): Promise<number[]> {
    const docs = await this.collection.find(filter, { projection: { _id: 1 } }).toArray();
    return docs.map((doc) => doc._id as number);
  }

  private byId(id: number): Filter<T> {
    return { _id: id } as Filter<T>;
  }

  private scoped(filter: Record<string, unknown>, within: Filter<T> | undefined): Filter<T> {
    return (within ? { $and: [within, filter] } : filter) as Filter<T>;
  }
}
