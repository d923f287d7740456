/**
 * The events service's `events` collection: every event once (its id is the `_id`, so a push and a sweep publishing
 * the same event store it once), listed newest first by id (ULIDs sort by time), kept for EVENT_RETENTION_DAYS.
 *
 * Retention is the database's: a TTL index on `occurredAt` (MongoDB's TTL monitor removes expired events about once a
 * minute). FerretDB v1.24 refuses the index option (`expireAfterSeconds` "is not implemented yet", code 238), so
 * where the server refuses it the service deletes expired events itself every minute (`expire`), with the same cut.
 */
import { MongoBulkWriteError, MongoServerError, type Collection, type Db, type Filter } from 'mongodb';
import type { EventAudience, RecordedEvent } from '@platform/events';
import { deletedAccount, DeletionMarks, isDuplicateKeyError, type IndexSpec } from '@platform/mongo';

export const EVENTS_COLLECTION = 'events';

/** A stored event; `deletes` marks a deletion (its record's subject and version), for a relay's sweep. */
export interface StoredEvent extends Omit<RecordedEvent, 'id'> {
  _id: string;
  audience: EventAudience;
  deletes?: { subject: string; fromVersion: number };
  storedAt: Date;
}

export interface EventPageQuery {
  /** Conditions on the stored fields (type, resource, time) and who may read them; all must hold. */
  filter: Filter<StoredEvent>;
  /** The id of the last event of the previous page (newest first: the next page holds older ones). */
  after: string | null;
  first: number;
}

const NOT_IMPLEMENTED = 238;

/**
 * An event about a deleted account, as everyone reads it once the account is deleted (ADR 0002): its id, type, time,
 * actor, resource and request id stay, its `data` (the account's username, e-mail, name, ...) is only the account's id.
 */
export function withoutPersonalData<E extends Pick<StoredEvent, 'resource' | 'data'>>(event: E): E {
  return event.resource.type === 'user' ? { ...event, data: { id: event.resource.id } } : event;
}

/** The feed's filters and sort, and the relays' look-up of a deletion. */
export const EVENT_INDEXES: IndexSpec[] = [
  { collection: EVENTS_COLLECTION, key: { type: 1, _id: -1 }, options: { name: 'type_1__id_-1' } },
  {
    collection: EVENTS_COLLECTION,
    key: { 'resource.type': 1, 'resource.id': 1, _id: -1 },
    options: { name: 'resource_1__id_-1' },
  },
  {
    collection: EVENTS_COLLECTION,
    key: { 'deletes.subject': 1 },
    options: { name: 'deletes.subject_1', sparse: true },
  },
];

export class EventStore {
  readonly events: Collection<StoredEvent>;
  /** Accounts deleted (or being deleted): their events keep no personal data (forgetAccount, withDeletedAccountsForgotten). */
  private readonly marks: DeletionMarks;
  /** True once the server refused the TTL index: `expire` then runs the retention. */
  private retentionByService = false;

  /** `retentionSeconds`: what ensureRetention and expire keep (the events service; readers need not say). */
  constructor(
    db: Db,
    private readonly retentionSeconds = 30 * 86_400,
  ) {
    this.events = db.collection<StoredEvent>(EVENTS_COLLECTION);
    this.marks = new DeletionMarks(db);
  }

  /**
   * An account's deletion (idempotent): marks it deleted, then strips the personal data from its stored events. An
   * event of it stored meanwhile is stripped by its recorder (withDeletedAccountsForgotten: insert, then look for the
   * mark; ADR 0009's order), so none keeps it once this resolved.
   */
  async forgetAccount(userId: number): Promise<void> {
    await this.marks.mark(deletedAccount(userId));
    await this.events.updateMany({ 'resource.type': 'user', 'resource.id': userId }, { $set: { data: { id: userId } } });
  }

  /** Whether the account is marked deleted (a primary-key read). */
  async accountDeleted(userId: number): Promise<boolean> {
    return (await this.marks.marked([deletedAccount(userId)])).length > 0;
  }

  /**
   * After storing `events`: those about an account marked deleted lose their personal data, stored and as returned (so
   * the fan-out carries them so too). Reads a mark only for events about accounts.
   */
  async withDeletedAccountsForgotten(events: readonly StoredEvent[]): Promise<StoredEvent[]> {
    const accounts = [...new Set(events.filter((e) => e.resource.type === 'user').map((e) => e.resource.id))];
    if (accounts.length === 0) return [...events];
    const deleted = new Set(
      (await this.marks.marked(accounts.map(deletedAccount))).map((record) => record.id),
    );
    if (deleted.size === 0) return [...events];
    const forgotten = events.filter((e) => e.resource.type === 'user' && deleted.has(e.resource.id));
    for (const event of forgotten) {
      await this.events.updateOne({ _id: event._id }, { $set: { data: { id: event.resource.id } } });
    }
    return events.map((e) => (e.resource.type === 'user' && deleted.has(e.resource.id) ? withoutPersonalData(e) : e));
  }

  /** The ids of the events about an account (its deletion waits for their tries on their way). */
  async idsAbout(resource: { type: StoredEvent['resource']['type']; id: number }): Promise<string[]> {
    const found = await this.events
      .find({ 'resource.type': resource.type, 'resource.id': resource.id }, { projection: { _id: 1 } })
      .toArray();
    return found.map((e) => e._id);
  }

  /**
   * Retention: the TTL index, or the service's own sweep where the server refuses it. Created by the service itself at
   * start (also with MONGO_INDEXES=verify): its option is the setting EVENT_RETENTION_DAYS, and FerretDB needs the
   * fallback. The feed's other indexes are EVENT_INDEXES (created at start, or by the index Job).
   */
  async ensureRetention(): Promise<void> {
    try {
      await this.events.createIndex(
        { occurredAt: 1 },
        { name: 'occurredAt_ttl', expireAfterSeconds: this.retentionSeconds },
      );
    } catch (error) {
      if (!(error instanceof MongoServerError && error.code === NOT_IMPLEMENTED)) throw error;
      this.retentionByService = true;
      await this.events.createIndex({ occurredAt: 1 }, { name: 'occurredAt_1' });
    }
  }

  /** Whether this service enforces retention itself (the server has no TTL indexes). */
  get expiresItself(): boolean {
    return this.retentionByService;
  }

  /** Deletes events past retention (only where the server has no TTL index); resolves how many went. */
  async expire(now = new Date()): Promise<number> {
    if (!this.retentionByService) return 0;
    const cut = new Date(now.getTime() - this.retentionSeconds * 1000);
    return (await this.events.deleteMany({ occurredAt: { $lt: cut } })).deletedCount;
  }

  /** Stores each event once; resolves the ids that were new (the others were stored before). */
  async insert(events: readonly StoredEvent[]): Promise<string[]> {
    if (events.length === 0) return [];
    try {
      await this.events.insertMany([...events], { ordered: false });
      return events.map((e) => e._id);
    } catch (error) {
      if (!(error instanceof MongoBulkWriteError)) throw error;
      // Some were there already (a retried publish): insert one by one and keep what was new.
      const fresh: string[] = [];
      for (const event of events) {
        try {
          await this.events.insertOne(event);
          fresh.push(event._id);
        } catch (one) {
          if (!isDuplicateKeyError(one)) throw one;
        }
      }
      return fresh;
    }
  }

  findById(id: string): Promise<StoredEvent | null> {
    return this.events.findOne({ _id: id });
  }

  /** One page, newest first, and whether older ones follow. */
  async page(query: EventPageQuery): Promise<{ events: StoredEvent[]; hasMore: boolean }> {
    const filter: Filter<StoredEvent> = query.after
      ? { $and: [query.filter, { _id: { $lt: query.after } }] }
      : query.filter;
    const found = await this.events
      .find(filter)
      .sort({ _id: -1 })
      .limit(query.first + 1)
      .toArray();
    return { events: found.slice(0, query.first), hasMore: found.length > query.first };
  }

  /** The version a record had when its deletion was recorded (`items:5`), or null when none was. */
  async deletionOf(subject: string): Promise<number | null> {
    const deletion = await this.events.findOne(
      { 'deletes.subject': subject },
      { projection: { deletes: 1 } },
    );
    return deletion?.deletes?.fromVersion ?? null;
  }
}
