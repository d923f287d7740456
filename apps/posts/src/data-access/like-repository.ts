/**
 * The likes collection: one document per (post, user); the unique index makes a second like a no-op. A post's like
 * count is the number of its like documents, counted when read (docs/decisions/0009): no stored counter to drift.
 */
import type { Collection, Db, ObjectId } from 'mongodb';
import { isDuplicateKeyError, namedIndexes, type IndexSpec } from '@platform/mongo';

export interface LikeDocument {
  _id?: ObjectId;
  postId: number;
  userId: number;
  createdAt: Date;
}

export const LIKES_COLLECTION = 'likes';

export const likeIndexes: IndexSpec[] = [
  {
    collection: LIKES_COLLECTION,
    key: { postId: 1, userId: 1 },
    options: { unique: true, name: 'postId_1_userId_1_unique' },
  },
  ...namedIndexes(LIKES_COLLECTION, { userId: 1 }),
];

export class LikeRepository {
  private readonly likes: Collection<LikeDocument>;

  constructor(db: Db) {
    this.likes = db.collection<LikeDocument>(LIKES_COLLECTION);
  }

  /** True when this call created the like; false when the user already liked the post. */
  async add(postId: number, userId: number, now: Date): Promise<boolean> {
    try {
      await this.likes.insertOne({ postId, userId, createdAt: now });
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  /** True when this call removed the like; false when there was none. */
  async remove(postId: number, userId: number): Promise<boolean> {
    const result = await this.likes.deleteOne({ postId, userId });
    return result.deletedCount === 1;
  }

  /** The like count of each post, in one query for the whole batch (a DataLoader's); posts without likes are absent. */
  async countByPosts(postIds: readonly number[]): Promise<Map<number, number>> {
    if (postIds.length === 0) return new Map();
    const rows = await this.likes
      .aggregate<{ _id: number; count: number }>([
        { $match: { postId: { $in: [...new Set(postIds)] } } },
        { $group: { _id: '$postId', count: { $sum: 1 } } },
      ])
      .toArray();
    return new Map(rows.map((row) => [row._id, row.count]));
  }

  async deleteByUser(userId: number): Promise<void> {
    await this.likes.deleteMany({ userId });
  }

  async deleteByPosts(postIds: readonly number[]): Promise<void> {
    if (postIds.length > 0) await this.likes.deleteMany({ postId: { $in: [...postIds] } });
  }
}
