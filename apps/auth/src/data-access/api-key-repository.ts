/** The api_keys collection: one document per live key, found by the SHA-256 digest of the key (never the key itself). */
import type { Db } from 'mongodb';
import { apiKeys, type StoredDocument } from '@platform/contracts';
import {
  deleteVersioned,
  SequencedCollection,
  updateVersioned,
  type IndexSpec,
  type WriteEvent,
} from '@platform/mongo';

/** A key as its declaration stores it: the owner's id, the digest (never the key), the prefix, last use, version. */
export type ApiKeyDocument = StoredDocument<typeof apiKeys>;

export const API_KEYS_COLLECTION = apiKeys.collection;

export const apiKeyIndexes: IndexSpec[] = [
  { collection: API_KEYS_COLLECTION, key: { digest: 1 }, options: { unique: true, name: 'digest_unique' } },
  { collection: API_KEYS_COLLECTION, key: { userId: 1, _id: 1 }, options: { name: 'user_id' } },
];

/** What listings and verification read: everything but the digest. */
const PUBLIC_PROJECTION = { digest: 0 } as const;

export class ApiKeyRepository extends SequencedCollection<ApiKeyDocument> {
  constructor(db: Db) {
    super(db, API_KEYS_COLLECTION);
  }

  /** `settle`: runs after the insert and before its event is published, and may undo it (SequencedCollection). */
  async insert(
    key: ApiKeyDocument,
    event?: WriteEvent<ApiKeyDocument>,
    settle?: (key: ApiKeyDocument) => Promise<void>,
  ): Promise<void> {
    await this.insertRecorded(key, event, settle);
  }

  countByUser(userId: number): Promise<number> {
    return this.collection.countDocuments({ userId });
  }

  listByUser(userId: number): Promise<ApiKeyDocument[]> {
    return this.collection.find({ userId }, { projection: PUBLIC_PROJECTION }).sort({ _id: 1 }).toArray();
  }

  /** The digest is an equality lookup on a unique index: a timing difference reveals nothing about a key. */
  findByDigest(digest: string): Promise<ApiKeyDocument | null> {
    return this.collection.findOne({ digest }, { projection: PUBLIC_PROJECTION });
  }

  /** The key if `userId` owns it; null for a missing key and for another user's key alike. */
  findOwned(id: number, userId: number): Promise<ApiKeyDocument | null> {
    return this.collection.findOne({ _id: id, userId }, { projection: PUBLIC_PROJECTION });
  }

  /** Renames the key as its next version if `userId` owns it (at `expectedVersion` when given); null: not theirs. */
  async renameOwned(
    id: number,
    userId: number,
    name: string,
    expectedVersion?: number | null,
    event?: WriteEvent<ApiKeyDocument>,
  ): Promise<Omit<ApiKeyDocument, 'digest'> | null> {
    const renamed = await updateVersioned(this.versioned, id, { name }, expectedVersion, { userId }, { event });
    return renamed && withoutDigest(renamed);
  }

  /** Deletes the key only if `userId` owns it (at `expectedVersion` when given); false for a missing or foreign key. */
  deleteOwned(
    id: number,
    userId: number,
    expectedVersion?: number | null,
    event?: WriteEvent<ApiKeyDocument>,
  ): Promise<boolean> {
    return deleteVersioned(this.versioned, id, expectedVersion, { userId }, undefined, { event });
  }

  /** Removes a key inserted moments ago whose account turned out to be deleted (no one has seen it). */
  async discard(id: number): Promise<void> {
    await this.collection.deleteOne({ _id: id });
  }

  async deleteByUser(userId: number): Promise<number> {
    const result = await this.collection.deleteMany({ userId });
    return result.deletedCount;
  }

  /**
   * Records use at most once per `granularityMs`, so a busy key costs one write a minute, not one per request. The use
   * is shown (`last_used_at`), so it is a new version like any change: a strong ETag names one exact representation.
   * Resolves whether it wrote (false: the last use is recent enough, nothing changed).
   */
  async touch(id: number, now: Date, granularityMs: number): Promise<boolean> {
    const staleBefore = new Date(now.getTime() - granularityMs);
    const stale = { $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: staleBefore } }] };
    return (await updateVersioned(this.versioned, id, { lastUsedAt: now }, null, stale)) !== null;
  }
}

/** A key as it may leave this module: what the public projection reads. */
const withoutDigest = ({ digest: _digest, ...key }: ApiKeyDocument): Omit<ApiKeyDocument, 'digest'> => key;
