/**
 * Use cases on posts: reads (posts:read), writes (posts:write; authors their own posts, admins all), likes (one per
 * user per post), deletion with its comments and likes, and the internal purge of a deleted user's posting traces.
 * No transactions (FerretDB v1): every multi-step write is ordered so that a retry completes it, and deletions mark
 * what they delete first so that racing inserts undo themselves (DeletionGuard).
 */
import { notFound } from '@platform/errors';
import {
  requireOwnerOrAdmin,
  requireScope,
  requireServicePrincipal,
  type Caller,
  type Principal,
} from '@platform/auth';
import { parseEntityId, parseInput, PostCreate, PostReplace, PostUpdate } from '@platform/contracts';
import { LISTINGS, planMongoList, toConnection, type ConnectionArgs } from '@platform/listing';
import type { PostChanges, PostDocument, PostRepository } from '../data-access/post-repository';
import type { CommentRepository } from '../data-access/comment-repository';
import type { LikeRepository } from '../data-access/like-repository';
import { actingUserId } from './caller';
import { deletedPost, deletedUser, type DeletionGuard } from './deletion-guard';

export class PostService {
  constructor(
    private readonly posts: PostRepository,
    private readonly comments: CommentRepository,
    private readonly likes: LikeRepository,
    private readonly guard: DeletionGuard,
    private readonly cursorSecret: Buffer,
  ) {}

  async get(caller: Caller, rawId: unknown): Promise<PostDocument | null> {
    requireScope(caller.principal, 'posts:read', caller.authError);
    return this.posts.findById(parseEntityId(rawId, 'id'));
  }

  async list(caller: Caller, args: ConnectionArgs) {
    requireScope(caller.principal, 'posts:read', caller.authError);
    const plan = planMongoList(LISTINGS.posts, args, this.cursorSecret, { facadeCall: caller.facadeCall });
    const docs = await this.posts.list(plan);
    return toConnection(docs, plan, LISTINGS.posts, args, this.cursorSecret, (filter) =>
      this.posts.count(filter),
    );
  }

  async create(caller: Caller, rawInput: unknown): Promise<PostDocument> {
    const principal = requireScope(caller.principal, 'posts:write', caller.authError);
    const authorId = actingUserId(principal);
    const input = parseInput(PostCreate, rawInput ?? {}, 'input');
    const now = new Date();
    const post = await this.posts.insertWithNewId((id) => ({
      _id: id,
      authorId,
      title: input.title,
      body: input.body,
      createdAt: now,
      updatedAt: now,
    }));
    await this.guard.keepUnlessDeleted(authorId, null, () => this.posts.deleteById(post._id));
    return post;
  }

  async replace(caller: Caller, rawId: unknown, rawInput: unknown): Promise<PostDocument> {
    const principal = requireScope(caller.principal, 'posts:write', caller.authError);
    const id = parseEntityId(rawId, 'id');
    const input = parseInput(PostReplace, rawInput ?? {}, 'input');
    await this.requireWritable(principal, id);
    return this.apply(id, { title: input.title, body: input.body });
  }

  async update(caller: Caller, rawId: unknown, rawInput: unknown): Promise<PostDocument> {
    const principal = requireScope(caller.principal, 'posts:write', caller.authError);
    const id = parseEntityId(rawId, 'id');
    const input = parseInput(PostUpdate, rawInput ?? {}, 'input');
    await this.requireWritable(principal, id);
    const changes: PostChanges = {};
    if (input.title !== undefined) changes.title = input.title;
    if (input.body !== undefined) changes.body = input.body;
    return this.apply(id, changes);
  }

  /**
   * Marked first (racing comments and likes then undo themselves), then its comments and likes, the post last: a
   * deletion that fails half-way leaves the post in place, so retrying the DELETE completes it.
   */
  async delete(caller: Caller, rawId: unknown): Promise<boolean> {
    const principal = requireScope(caller.principal, 'posts:write', caller.authError);
    const id = parseEntityId(rawId, 'id');
    await this.requireWritable(principal, id);
    await this.guard.markDeleted(deletedPost(id));
    await this.comments.deleteByPosts([id]);
    await this.likes.deleteByPosts([id]);
    if (!(await this.posts.deleteById(id))) throw notFound('Post', id);
    return true;
  }

  /**
   * Idempotent: a second like by the same user changes nothing (unique index on {postId, userId}). The post's
   * likeCount is counted when the response is resolved, so it includes this like.
   */
  async like(caller: Caller, rawId: unknown): Promise<PostDocument> {
    const principal = requireScope(caller.principal, 'posts:write', caller.authError);
    const userId = actingUserId(principal);
    const id = parseEntityId(rawId, 'id');
    const post = await this.posts.findById(id);
    if (!post) throw notFound('Post', id);
    if (await this.likes.add(id, userId, new Date())) {
      await this.guard.keepUnlessDeleted(userId, post, () => this.likes.remove(id, userId));
    }
    return post;
  }

  /** Idempotent: unliking a post the user does not like changes nothing. */
  async unlike(caller: Caller, rawId: unknown): Promise<PostDocument> {
    const principal = requireScope(caller.principal, 'posts:write', caller.authError);
    const userId = actingUserId(principal);
    const id = parseEntityId(rawId, 'id');
    const post = await this.posts.findById(id);
    if (!post) throw notFound('Post', id);
    await this.likes.remove(id, userId);
    return post;
  }

  /**
   * Internal (users subgraph, on account deletion), idempotent: marks the user deleted (racing writes by or onto the
   * user then undo themselves), removes the user's likes and comments, then the user's posts with all their comments
   * and likes (children first, so a retry finds the posts again).
   */
  async purgeAuthor(caller: Caller, rawUserId: unknown): Promise<boolean> {
    requireServicePrincipal(caller.principal, caller.authError);
    const userId = parseEntityId(rawUserId, 'userId');
    await this.guard.markDeleted(deletedUser(userId));
    await this.likes.deleteByUser(userId);
    await this.comments.deleteByAuthor(userId);
    const postIds = await this.posts.idsByAuthor(userId);
    await this.comments.deleteByPosts(postIds);
    await this.likes.deleteByPosts(postIds);
    await this.posts.deleteByIds(postIds);
    return true;
  }

  /** 404 before 403: an absent post is reported as absent to everyone, then authorship is checked. */
  private async requireWritable(principal: Principal, id: number): Promise<PostDocument> {
    const post = await this.posts.findById(id);
    if (!post) throw notFound('Post', id);
    requireOwnerOrAdmin(principal, post.authorId);
    return post;
  }

  private async apply(id: number, changes: PostChanges): Promise<PostDocument> {
    const updated = await this.posts.update(id, changes, new Date());
    if (!updated) throw notFound('Post', id);
    return updated;
  }
}
