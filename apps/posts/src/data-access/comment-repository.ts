/** The comments collection: comments keyed by integer id, each on one post, by one author. */
import type { Db } from 'mongodb';
import { RecordRepository, namedIndexes, type IndexSpec } from '@platform/mongo';

export interface CommentDocument {
  _id: number;
  postId: number;
  authorId: number;
  body: string;
  createdAt: Date;
  updatedAt: Date;
  /** Write counter behind the ETag (absent on comments written before it existed: 0). */
  version?: number;
}

export const COMMENTS_COLLECTION = 'comments';

/** A post's comments by id (listing, Post.comments, cascade), by author within a post (filter, sort), by author (purge). */
export const commentIndexes: IndexSpec[] = namedIndexes(
  COMMENTS_COLLECTION,
  { postId: 1, _id: 1 },
  { postId: 1, authorId: 1, _id: 1 },
  { postId: 1, authorId: -1, _id: 1 },
  { authorId: 1, _id: 1 },
);

export class CommentRepository extends RecordRepository<CommentDocument> {
  constructor(db: Db) {
    super(db, COMMENTS_COLLECTION);
  }
}
