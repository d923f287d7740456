/**
 * Use cases on comments, each under one post: listing a post's comments (posts:read), writing (posts:write; authors
 * their own, admins all; versioned, so writes honour `expectedVersion`), all by RecordService, and creation.
 */
import { notFound } from '@platform/errors';
import type { Caller } from '@platform/auth';
import type { EventOutbox } from '@platform/mongo';
import { CommentCreate, CommentUpdate, parseEntityId, parseInput } from '@platform/contracts';
import { LISTINGS } from '@platform/listing';
import { RecordService } from '@platform/graphql-server';
import type { CommentDocument, CommentRepository } from '../data-access/comment-repository';
import type { PostRepository } from '../data-access/post-repository';
import { actingUserId } from './caller';
import type { DeletionGuard } from './deletion-guard';

/** A comment's REST representation (what the comment routes answer), carried by its events. */
export const commentRepresentation = (comment: CommentDocument): Record<string, unknown> => ({
  id: comment._id,
  post_id: comment.postId,
  author_id: comment.authorId,
  body: comment.body,
  created_at: comment.createdAt.toISOString(),
});

export class CommentService extends RecordService<CommentDocument> {
  constructor(
    comments: CommentRepository,
    private readonly posts: PostRepository,
    private readonly guard: DeletionGuard,
    cursorSecret: Buffer,
    outbox?: EventOutbox,
  ) {
    const kind = { label: 'Comment', scope: 'posts', owner: 'authorId', listing: LISTINGS.comments } as const;
    super(comments, kind, cursorSecret, {
      updateChanges: (rawInput) => {
        const input = parseInput(CommentUpdate, rawInput ?? {}, 'input');
        return input.body === undefined ? {} : { body: input.body };
      },
      parent: {
        field: 'postId',
        label: 'Post',
        kind: 'post',
        argument: 'postId',
        exists: async (id) => (await posts.findById(id)) !== null,
      },
      events: { outbox, resource: 'comment', represent: commentRepresentation },
    });
  }

  async create(caller: Caller, rawInput: unknown, rawPostId: unknown): Promise<CommentDocument> {
    const authorId = actingUserId(this.writer(caller));
    const postId = parseEntityId(rawPostId, 'postId');
    const input = parseInput(CommentCreate, rawInput ?? {}, 'input');
    const post = await this.posts.findById(postId);
    if (!post) throw notFound('Post', postId);
    const now = new Date();
    return this.repository.insertWithNewId(
      (id) => ({ _id: id, postId, authorId, body: input.body, createdAt: now, updatedAt: now }),
      this.writeEvent(caller, 'created'),
      (comment) => this.guard.keepUnlessDeleted(authorId, post, () => this.repository.discard(comment._id)),
    );
  }
}
