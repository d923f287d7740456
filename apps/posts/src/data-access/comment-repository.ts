/** The comments collection: comments keyed by integer id, each on one post, by one author. */
import type { Collection, Db, Filter, Sort } from 'mongodb';
import { findByIds, nextSequenceValue, type IndexSpec } from '@platform/mongo';
import type { ListPlan } from './post-repository';

export interface CommentDocument {
  _id: number;
  postId: number;
  authorId: number;
  body: string;
  createdAt: Date;
  updatedAt: Date;
}

export const COMMENTS_COLLECTION = 'comments';

/** A post's comments by id (listing, Post.comments, cascade), by author within a post (filter, sort), by author (purge). */
export const commentIndexes: IndexSpec[] = [
  { collection: COMMENTS_COLLECTION, key: { postId: 1, _id: 1 }, options: { name: 'postId_1__id_1' } },
  {
    collection: COMMENTS_COLLECTION,
    key: { postId: 1, authorId: 1, _id: 1 },
    options: { name: 'postId_1_authorId_1__id_1' },
  },
  {
    collection: COMMENTS_COLLECTION,
    key: { postId: 1, authorId: -1, _id: 1 },
    options: { name: 'postId_1_authorId_-1__id_1' },
  },
  { collection: COMMENTS_COLLECTION, key: { authorId: 1, _id: 1 }, options: { name: 'authorId_1__id_1' } },
];

export class CommentRepository {
  private readonly comments: Collection<CommentDocument>;

  constructor(private readonly db: Db) {
    this.comments = db.collection<CommentDocument>(COMMENTS_COLLECTION);
  }

  /** Allocates the next id (unique even under concurrency: see nextSequenceValue) and inserts the document built with it. */
  async insertWithNewId(build: (id: number) => CommentDocument): Promise<CommentDocument> {
    const document = build(await nextSequenceValue(this.db, COMMENTS_COLLECTION));
    await this.comments.insertOne(document);
    return document;
  }

  findById(id: number): Promise<CommentDocument | null> {
    return this.comments.findOne({ _id: id });
  }

  findByIds(ids: readonly number[]): Promise<CommentDocument[]> {
    return findByIds(this.comments, ids);
  }

  /** One query for the comments of many posts, in id order (callers group and cap per post). */
  findByPosts(postIds: readonly number[]): Promise<CommentDocument[]> {
    return this.comments
      .find({ postId: { $in: [...postIds] } })
      .sort({ postId: 1, _id: 1 })
      .toArray();
  }

  /** A listing within one post: the plan's filter (from @platform/listing) and the post condition, combined. */
  list(postId: number, plan: ListPlan): Promise<CommentDocument[]> {
    return this.comments
      .find({ $and: [{ postId }, plan.filter] } as Filter<CommentDocument>)
      .sort(plan.sort as Sort)
      .skip(plan.skip)
      .limit(plan.limit)
      .toArray();
  }

  count(postId: number, filter: Record<string, unknown>): Promise<number> {
    return this.comments.countDocuments({ $and: [{ postId }, filter] } as Filter<CommentDocument>);
  }

  update(id: number, body: string, now: Date): Promise<CommentDocument | null> {
    return this.comments.findOneAndUpdate(
      { _id: id },
      { $set: { body, updatedAt: now } },
      { returnDocument: 'after' },
    );
  }

  async deleteById(id: number): Promise<boolean> {
    const result = await this.comments.deleteOne({ _id: id });
    return result.deletedCount === 1;
  }

  async deleteByPosts(postIds: readonly number[]): Promise<void> {
    if (postIds.length > 0) await this.comments.deleteMany({ postId: { $in: [...postIds] } });
  }

  async deleteByAuthor(authorId: number): Promise<void> {
    await this.comments.deleteMany({ authorId });
  }
}
