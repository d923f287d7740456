/** The posts collection: posts keyed by integer id, with the author's user id (like counts are derived: LikeRepository). */
import type { Db } from 'mongodb';
import { RecordRepository, namedIndexes, type IndexSpec, type RecordChanges } from '@platform/mongo';

export interface PostDocument {
  _id: number;
  authorId: number;
  title: string;
  body: string;
  createdAt: Date;
  updatedAt: Date;
  /** Write counter behind the ETag (absent on posts written before it existed: 0). */
  version?: number;
}

export type PostChanges = RecordChanges<PostDocument>;

export const POSTS_COLLECTION = 'posts';

/** Listing filters and sorts (authorId, title, each with the `_id` tie-breaker both ways); authorId also serves User.posts. */
export const postIndexes: IndexSpec[] = ['authorId', 'title'].flatMap((field) =>
  namedIndexes(POSTS_COLLECTION, { [field]: 1, _id: 1 }, { [field]: -1, _id: 1 }),
);

export class PostRepository extends RecordRepository<PostDocument> {
  constructor(db: Db) {
    super(db, POSTS_COLLECTION);
  }
}
