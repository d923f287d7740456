/**
 * The refresh_tokens collection: one document per issued refresh token, found by the SHA-256 digest of the token
 * (the token itself is never stored). Tokens of one login share a family; a rotated token is marked used.
 */
import type { Collection, Db } from 'mongodb';
import type { IndexSpec } from '@platform/mongo';

export interface RefreshTokenDocument {
  /** Hex SHA-256 of the token. */
  _id: string;
  familyId: string;
  userId: number;
  /** Scopes the login was granted (possibly narrowed); a refresh never widens them. */
  scopes: string[];
  createdAt: Date;
  expiresAt: Date;
  /** Set when the token was exchanged for a new one; presenting it again is reuse. */
  usedAt: Date | null;
  revokedAt: Date | null;
}

export const REFRESH_TOKENS_COLLECTION = 'refresh_tokens';

export const refreshTokenIndexes: IndexSpec[] = [
  { collection: REFRESH_TOKENS_COLLECTION, key: { familyId: 1 }, options: { name: 'family' } },
  { collection: REFRESH_TOKENS_COLLECTION, key: { userId: 1 }, options: { name: 'user' } },
];

export class RefreshTokenRepository {
  private readonly tokens: Collection<RefreshTokenDocument>;

  constructor(db: Db) {
    this.tokens = db.collection<RefreshTokenDocument>(REFRESH_TOKENS_COLLECTION);
  }

  async insert(token: RefreshTokenDocument): Promise<void> {
    await this.tokens.insertOne(token);
  }

  findByDigest(digest: string): Promise<RefreshTokenDocument | null> {
    return this.tokens.findOne({ _id: digest });
  }

  /** Marks a live token used, atomically: of two concurrent refreshes with one token only one wins. */
  markUsed(digest: string, now: Date): Promise<RefreshTokenDocument | null> {
    return this.tokens.findOneAndUpdate(
      { _id: digest, usedAt: null, revokedAt: null, expiresAt: { $gt: now } },
      { $set: { usedAt: now } },
      { returnDocument: 'after' },
    );
  }

  async revokeFamily(familyId: string, now: Date): Promise<void> {
    await this.tokens.updateMany({ familyId, revokedAt: null }, { $set: { revokedAt: now } });
  }

  async revokeAllOfUser(userId: number, now: Date): Promise<void> {
    await this.tokens.updateMany({ userId, revokedAt: null }, { $set: { revokedAt: now } });
  }

  async deleteAllOfUser(userId: number): Promise<void> {
    await this.tokens.deleteMany({ userId });
  }
}
