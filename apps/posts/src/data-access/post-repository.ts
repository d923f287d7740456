/** The posts collection: posts keyed by integer id, with the author's user id (like counts are derived: LikeRepository). */
import type { Db } from 'mongodb';
import { posts, type StoredDocument } from '@platform/contracts';
import { LISTINGS } from '@platform/listing';
import { RecordRepository, listingIndexes, type IndexSpec } from '@platform/mongo';

export type PostDocument = StoredDocument<typeof posts>;

export const POSTS_COLLECTION = posts.collection;

/** Listing filters and sorts (each with the `_id` tie-breaker both ways); authorId's also serves User.posts. */
export const postIndexes: IndexSpec[] = listingIndexes(POSTS_COLLECTION, LISTINGS.posts);

export class PostRepository extends RecordRepository<PostDocument> {
  constructor(db: Db) {
    super(db, POSTS_COLLECTION);
  }
}
