/**
 * Use cases on posts: reads (posts:read), writes (posts:write; authors their own posts, admins all; versioned, so
 * writes honour `expectedVersion`), likes (one per user per post), deletion with its comments and likes, and the
 * internal purge of a deleted user's posting traces. No transactions (FerretDB v1): every multi-step write is ordered
 * so that a retry completes it, and deletions mark what they delete first so that racing inserts undo themselves
 * (DeletionGuard).
 */
import { notFound } from '@platform/errors';
import { requireServicePrincipal, type Caller } from '@platform/auth';
import { parseEntityId, posts as postResource, storedRepresentation } from '@platform/contracts';
import { RecordService } from '@platform/graphql-server';
import type { CursorSecret } from '@platform/listing';
import { buildEvent } from '@platform/events';
import type { EventOutbox } from '@platform/mongo';
import type { PostDocument, PostRepository } from '../data-access/post-repository';
import type { CommentRepository } from '../data-access/comment-repository';
import type { LikeRepository } from '../data-access/like-repository';
import { actingUserId } from './caller';
import { deletedPost, deletedUser, type DeletionGuard } from './deletion-guard';

/**
 * A post's REST representation, carried by its events, without `like_count`: a count of its likes made when read
 * (ADR 0009), not part of the post's own state; post.liked and post.unliked say who liked it.
 */
export const postRepresentation = storedRepresentation(postResource);

export class PostService extends RecordService<PostDocument> {
  constructor(
    posts: PostRepository,
    private readonly comments: CommentRepository,
    private readonly likes: LikeRepository,
    private readonly guard: DeletionGuard,
    cursorSecret: CursorSecret,
    private readonly outbox?: EventOutbox,
  ) {
    super(
      posts,
      postResource,
      cursorSecret,
      {
        // Under the post's version claim (a stale If-Match changes nothing): marked first, so racing comments and likes
        // undo themselves, then its comments and likes; the post goes last, so a retried DELETE completes a failed one.
        cascade: async (id) => {
          await guard.markDeleted(deletedPost(id));
          await comments.deleteWhere({ postId: id });
          await likes.deleteByPosts([id]);
        },
        events: { outbox, resource: 'post', represent: postRepresentation },
      },
    );
  }

  async create(caller: Caller, rawInput: unknown): Promise<PostDocument> {
    const principal = this.writer(caller);
    const authorId = actingUserId(principal);
    return this.insertNew(caller, { ...this.parseCreate(principal, rawInput).changes, authorId }, (post) =>
      this.guard.keepUnlessDeleted(authorId, null, () => this.repository.discard(post._id)),
    );
  }

  /**
   * Idempotent: a second like by the same user changes nothing (unique index on {postId, userId}). The post's
   * likeCount is counted when the response is resolved, so it includes this like.
   */
  async like(caller: Caller, rawId: unknown): Promise<PostDocument> {
    const { userId, post } = await this.likeTarget(caller, rawId);
    const add = async () => {
      const added = await this.likes.add(post._id, userId, new Date());
      if (added) await this.guard.keepUnlessDeleted(userId, post, () => this.likes.remove(post._id, userId));
      return added;
    };
    await (this.outbox
      ? this.outbox.around(this.likeEvent(caller, 'post.liked', post, userId, 'present'), add)
      : add());
    return post;
  }

  /** Idempotent: unliking a post the user does not like changes nothing. */
  async unlike(caller: Caller, rawId: unknown): Promise<PostDocument> {
    const { userId, post } = await this.likeTarget(caller, rawId);
    const remove = () => this.likes.remove(post._id, userId);
    await (this.outbox
      ? this.outbox.around(this.likeEvent(caller, 'post.unliked', post, userId, 'absent'), remove)
      : remove());
    return post;
  }

  /**
   * A like's or unlike's event, published only when the call changed something (a repeated like or unlike records
   * none); the sweep decides an abandoned one by whether the like document is there.
   */
  private likeEvent(
    caller: Caller,
    type: 'post.liked' | 'post.unliked',
    post: PostDocument,
    userId: number,
    expect: 'present' | 'absent',
  ) {
    const subject = `likes:${post._id}:${userId}`;
    return {
      event: buildEvent(
        caller,
        type,
        { type: 'post', id: post._id },
        { post_id: post._id, user_id: userId },
        { scope: 'posts:read', ownerId: post.authorId, private: false },
      ),
      check: {
        collection: 'likes',
        filter: { postId: post._id, userId },
        expect,
        subject,
        ...(expect === 'absent' ? { fromVersion: 0 } : {}),
      },
    };
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
    await this.comments.deleteWhere({ authorId: userId });
    const postIds = await this.repository.idsWhere({ authorId: userId });
    if (postIds.length === 0) return true;
    await this.comments.deleteWhere({ postId: { $in: postIds } });
    await this.likes.deleteByPosts(postIds);
    await this.repository.deleteWhere({ _id: { $in: postIds } });
    return true;
  }

  /** A like or unlike: the acting user and the post (404 when absent). */
  private async likeTarget(caller: Caller, rawId: unknown): Promise<{ userId: number; post: PostDocument }> {
    const userId = actingUserId(this.writer(caller));
    const id = parseEntityId(rawId, 'id');
    const post = await this.repository.findById(id);
    if (!post) throw notFound('Post', id);
    return { userId, post };
  }
}
