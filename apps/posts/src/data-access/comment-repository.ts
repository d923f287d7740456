/** The comments collection: comments keyed by integer id, each on one post, by one author. */
import type { Db } from 'mongodb';
import { comments, type StoredDocument } from '@platform/contracts';
import { LISTINGS } from '@platform/listing';
import { RecordRepository, listingIndexes, namedIndexes, type IndexSpec } from '@platform/mongo';

export type CommentDocument = StoredDocument<typeof comments>;

export const COMMENTS_COLLECTION = comments.collection;

/** A post's comments by id (listing, Post.comments, cascade) and by author within a post (filter, sort); by author (purge). */
export const commentIndexes: IndexSpec[] = [
  ...listingIndexes(COMMENTS_COLLECTION, LISTINGS.comments, 'postId'),
  ...namedIndexes(COMMENTS_COLLECTION, { authorId: 1, _id: 1 }),
];

export class CommentRepository extends RecordRepository<CommentDocument> {
  constructor(db: Db) {
    super(db, COMMENTS_COLLECTION);
  }
}
