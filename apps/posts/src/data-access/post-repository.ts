/** The posts collection: posts keyed by integer id, with the author's user id (like counts are derived: LikeRepository). */
import type { Collection, Db, Filter, Sort } from 'mongodb';
import { findByIds, nextSequenceValue, type IndexSpec } from '@platform/mongo';

export interface PostDocument {
  _id: number;
  authorId: number;
  title: string;
  body: string;
  createdAt: Date;
  updatedAt: Date;
}

export type PostChanges = Partial<Pick<PostDocument, 'title' | 'body'>>;

export interface ListPlan {
  filter: Record<string, unknown>;
  sort: Array<[string, 1 | -1]>;
  skip: number;
  limit: number;
}

export const POSTS_COLLECTION = 'posts';

/** Listing filters and sorts (authorId, title, each with the `_id` tie-breaker both ways); authorId also serves User.posts. */
export const postIndexes: IndexSpec[] = ['authorId', 'title'].flatMap((field) => [
  { collection: POSTS_COLLECTION, key: { [field]: 1, _id: 1 }, options: { name: `${field}_1__id_1` } },
  { collection: POSTS_COLLECTION, key: { [field]: -1, _id: 1 }, options: { name: `${field}_-1__id_1` } },
]);

export class PostRepository {
  private readonly posts: Collection<PostDocument>;

  constructor(private readonly db: Db) {
    this.posts = db.collection<PostDocument>(POSTS_COLLECTION);
  }

  /** Allocates the next id (unique even under concurrency: see nextSequenceValue) and inserts the document built with it. */
  async insertWithNewId(build: (id: number) => PostDocument): Promise<PostDocument> {
    const document = build(await nextSequenceValue(this.db, POSTS_COLLECTION));
    await this.posts.insertOne(document);
    return document;
  }

  findById(id: number): Promise<PostDocument | null> {
    return this.posts.findOne({ _id: id });
  }

  findByIds(ids: readonly number[]): Promise<PostDocument[]> {
    return findByIds(this.posts, ids);
  }

  /** One query for the posts of many authors, in id order (callers group and cap per author). */
  findByAuthors(authorIds: readonly number[]): Promise<PostDocument[]> {
    return this.posts
      .find({ authorId: { $in: [...authorIds] } })
      .sort({ authorId: 1, _id: 1 })
      .toArray();
  }

  async idsByAuthor(authorId: number): Promise<number[]> {
    const docs = await this.posts.find({ authorId }, { projection: { _id: 1 } }).toArray();
    return docs.map((doc) => doc._id);
  }

  list(plan: ListPlan): Promise<PostDocument[]> {
    return this.posts
      .find(plan.filter as Filter<PostDocument>)
      .sort(plan.sort as Sort)
      .skip(plan.skip)
      .limit(plan.limit)
      .toArray();
  }

  count(filter: Record<string, unknown>): Promise<number> {
    return this.posts.countDocuments(filter as Filter<PostDocument>);
  }

  update(id: number, changes: PostChanges, now: Date): Promise<PostDocument | null> {
    return this.posts.findOneAndUpdate(
      { _id: id },
      { $set: { ...changes, updatedAt: now } },
      { returnDocument: 'after' },
    );
  }

  async deleteById(id: number): Promise<boolean> {
    const result = await this.posts.deleteOne({ _id: id });
    return result.deletedCount === 1;
  }

  async deleteByIds(ids: readonly number[]): Promise<void> {
    if (ids.length > 0) await this.posts.deleteMany({ _id: { $in: [...ids] } });
  }
}
