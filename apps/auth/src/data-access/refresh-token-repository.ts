/**
 * Refresh tokens and the records that make their rules exact on FerretDB v1 and MongoDB alike
 * (docs/decisions/0008-exactly-once-primitives.md):
 * - `refresh_tokens`: one document per issued token, found by the SHA-256 digest of the token (never the token);
 *   tokens of one login share a family.
 * - `refresh_redemptions`: a token is redeemed by inserting its digest as `_id`; the primary key lets exactly one of
 *   any number of concurrent redemptions win, where a conditional findOneAndUpdate let several win on FerretDB.
 * - `refresh_revoked_families`: a family is revoked by recording its id; every redemption consults the record, so it
 *   also kills a token that a concurrent rotation inserts after the revocation (a per-token flag would miss that one).
 */
import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError, type IndexSpec } from '@platform/mongo';

export interface RefreshTokenDocument {
  /** Hex SHA-256 of the token. */
  _id: string;
  familyId: string;
  userId: number;
  /** Scopes the login was granted (possibly narrowed); a refresh never widens them. */
  scopes: string[];
  createdAt: Date;
  expiresAt: Date;
  /** When the token was redeemed (informational: the redemption record decides). */
  usedAt: Date | null;
  /** Set on the family's tokens when it is revoked (informational: the family record decides). */
  revokedAt: Date | null;
}

/** The one redemption of a token: `_id` is the token's digest. */
interface RedemptionDocument {
  _id: string;
  familyId: string;
  userId: number;
  redeemedAt: Date;
}

/** A revoked family: `_id` is the family id. */
interface RevokedFamilyDocument {
  _id: string;
  userId: number;
  revokedAt: Date;
}

export const REFRESH_TOKENS_COLLECTION = 'refresh_tokens';
export const REFRESH_REDEMPTIONS_COLLECTION = 'refresh_redemptions';
export const REVOKED_FAMILIES_COLLECTION = 'refresh_revoked_families';

/**
 * Each query's equality fields first, then its range (docs/performance.md, "Indexes"): a family's live tokens
 * (revokeFamily), a user's live or recently live tokens (revokeAllForUser's distinct) and, by prefix, all of a user's
 * tokens (purge). They replace the earlier single-field `family` and `user` indexes, which an operator may drop.
 */
export const refreshTokenIndexes: IndexSpec[] = [
  { collection: REFRESH_TOKENS_COLLECTION, key: { familyId: 1, revokedAt: 1 }, options: { name: 'family_revoked' } },
  {
    collection: REFRESH_TOKENS_COLLECTION,
    key: { userId: 1, revokedAt: 1, expiresAt: 1 },
    options: { name: 'user_revoked_expires' },
  },
  { collection: REFRESH_REDEMPTIONS_COLLECTION, key: { userId: 1 }, options: { name: 'user' } },
  { collection: REVOKED_FAMILIES_COLLECTION, key: { userId: 1 }, options: { name: 'user' } },
];

/** Far longer than any rotation can take between its checks and its insert (a subgraph call times out in seconds). */
const IN_FLIGHT_MARGIN_MS = 60 * 60 * 1000;

export class RefreshTokenRepository {
  private readonly tokens: Collection<RefreshTokenDocument>;
  private readonly redemptions: Collection<RedemptionDocument>;
  private readonly revokedFamilies: Collection<RevokedFamilyDocument>;

  constructor(db: Db) {
    this.tokens = db.collection<RefreshTokenDocument>(REFRESH_TOKENS_COLLECTION);
    this.redemptions = db.collection<RedemptionDocument>(REFRESH_REDEMPTIONS_COLLECTION);
    this.revokedFamilies = db.collection<RevokedFamilyDocument>(REVOKED_FAMILIES_COLLECTION);
  }

  async insert(token: RefreshTokenDocument): Promise<void> {
    await this.tokens.insertOne(token);
  }

  findByDigest(digest: string): Promise<RefreshTokenDocument | null> {
    return this.tokens.findOne({ _id: digest });
  }

  /**
   * Redeems the token: true for the one caller whose insert of the digest as `_id` succeeded, false for every other
   * (already redeemed: reuse). Only the primary key decides, so this holds under any concurrency.
   */
  async redeem(token: RefreshTokenDocument, now: Date): Promise<boolean> {
    try {
      await this.redemptions.insertOne({
        _id: token._id,
        familyId: token.familyId,
        userId: token.userId,
        redeemedAt: now,
      });
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
    // For readers of the token document (and instances still deciding by usedAt during a rolling deploy).
    await this.tokens.updateOne({ _id: token._id }, { $set: { usedAt: now } });
    return true;
  }

  async isFamilyRevoked(familyId: string): Promise<boolean> {
    return (await this.revokedFamilies.countDocuments({ _id: familyId }, { limit: 1 })) > 0;
  }

  /** Idempotent; tokens the family gets later are dead too, because redemption consults the record. */
  async revokeFamily(familyId: string, userId: number, now: Date): Promise<void> {
    try {
      await this.revokedFamilies.insertOne({ _id: familyId, userId, revokedAt: now });
    } catch (error) {
      // Revoked already (perhaps by a concurrent loser of the same race): the record stands either way.
      if (!isDuplicateKeyError(error)) throw error;
    }
    await this.tokens.updateMany({ familyId, revokedAt: null }, { $set: { revokedAt: now } });
  }

  /**
   * Revokes every family of the user that still has a token that is live or was live within the last hour. A rotation
   * racing this call redeemed a token that was live moments ago, so its family is among these and the token it issues
   * is dead as well; families whose tokens all expired long ago cannot rotate any more and are skipped.
   */
  async revokeAllOfUser(userId: number, now: Date): Promise<void> {
    const families = await this.tokens.distinct('familyId', {
      userId,
      revokedAt: null,
      expiresAt: { $gt: new Date(now.getTime() - IN_FLIGHT_MARGIN_MS) },
    });
    for (const familyId of families) await this.revokeFamily(familyId, userId, now);
  }

  async deleteAllOfUser(userId: number): Promise<void> {
    await this.tokens.deleteMany({ userId });
    await this.redemptions.deleteMany({ userId });
    await this.revokedFamilies.deleteMany({ userId });
  }
}
