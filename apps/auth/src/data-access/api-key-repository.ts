/** The api_keys collection: one document per live key, found by the SHA-256 digest of the key (never the key itself). */
import type { Collection, Db } from 'mongodb';
import { nextSequenceValue, type IndexSpec } from '@platform/mongo';

export interface ApiKeyDocument {
  _id: number;
  userId: number;
  name: string;
  scopes: string[];
  /** Hex SHA-256 of the key; unique. */
  digest: string;
  /** The first characters of the key, so its owner can tell keys apart; too short to use. */
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export const API_KEYS_COLLECTION = 'api_keys';

export const apiKeyIndexes: IndexSpec[] = [
  { collection: API_KEYS_COLLECTION, key: { digest: 1 }, options: { unique: true, name: 'digest_unique' } },
  { collection: API_KEYS_COLLECTION, key: { userId: 1, _id: 1 }, options: { name: 'user_id' } },
];

/** What listings and verification read: everything but the digest. */
const PUBLIC_PROJECTION = { digest: 0 } as const;

export class ApiKeyRepository {
  private readonly keys: Collection<ApiKeyDocument>;

  constructor(private readonly db: Db) {
    this.keys = db.collection<ApiKeyDocument>(API_KEYS_COLLECTION);
  }

  nextId(): Promise<number> {
    return nextSequenceValue(this.db, API_KEYS_COLLECTION);
  }

  async insert(key: ApiKeyDocument): Promise<void> {
    await this.keys.insertOne(key);
  }

  countByUser(userId: number): Promise<number> {
    return this.keys.countDocuments({ userId });
  }

  listByUser(userId: number): Promise<ApiKeyDocument[]> {
    return this.keys.find({ userId }, { projection: PUBLIC_PROJECTION }).sort({ _id: 1 }).toArray();
  }

  /** The digest is an equality lookup on a unique index: a timing difference reveals nothing about a key. */
  findByDigest(digest: string): Promise<ApiKeyDocument | null> {
    return this.keys.findOne({ digest }, { projection: PUBLIC_PROJECTION });
  }

  /** Deletes the key only if `userId` owns it; false for a missing key and for another user's key alike. */
  async deleteOwned(id: number, userId: number): Promise<boolean> {
    const result = await this.keys.deleteOne({ _id: id, userId });
    return result.deletedCount === 1;
  }

  async deleteByUser(userId: number): Promise<number> {
    const result = await this.keys.deleteMany({ userId });
    return result.deletedCount;
  }

  /** Records use at most once per `granularityMs`, so a busy key costs one write a minute, not one per request. */
  async touch(id: number, now: Date, granularityMs: number): Promise<void> {
    const staleBefore = new Date(now.getTime() - granularityMs);
    await this.keys.updateOne(
      { _id: id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: staleBefore } }] },
      { $set: { lastUsedAt: now } },
    );
  }
}
