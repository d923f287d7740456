/**
 * Use cases on comments, each under one post: listing a post's comments (posts:read), writing (posts:write; authors
 * their own, admins all; versioned, so writes honour `expectedVersion`), all by RecordService from the comment's
 * declaration, and creation; each write records its event (ADR 0023).
 */
import { notFound } from '@platform/errors';
import type { Caller } from '@platform/auth';
import type { EventOutbox } from '@platform/mongo';
import { comments as commentResource, parseEntityId, storedRepresentation } from '@platform/contracts';
import { RecordService } from '@platform/graphql-server';
import type { CursorSecret } from '@platform/listing';
import type { CommentDocument, CommentRepository } from '../data-access/comment-repository';
import type { PostRepository } from '../data-access/post-repository';
import { actingUserId } from './caller';
import type { DeletionGuard } from './deletion-guard';

/** A comment's REST representation (what the comment routes answer), carried by its events. */
export const commentRepresentation = storedRepresentation(commentResource);

export class CommentService extends RecordService<CommentDocument> {
  constructor(
    comments: CommentRepository,
    private readonly posts: PostRepository,
    private readonly guard: DeletionGuard,
    cursorSecret: CursorSecret,
    outbox?: EventOutbox,
  ) {
    super(comments, commentResource, cursorSecret, {
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
    const principal = this.writer(caller);
    const authorId = actingUserId(principal);
    const postId = parseEntityId(rawPostId, 'postId');
    const { changes } = this.parseCreate(principal, rawInput);
    const post = await this.posts.findById(postId);
    if (!post) throw notFound('Post', postId);
    return this.insertNew(caller, { ...changes, postId, authorId }, (comment) =>
      this.guard.keepUnlessDeleted(authorId, post, () => this.repository.discard(comment._id)),
    );
  }
}
