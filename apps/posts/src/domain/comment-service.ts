/** Use cases on comments: listing a post's comments (posts:read), writing (posts:write; authors their own, admins all). */
import { notFound } from '@platform/errors';
import { requireOwnerOrAdmin, requireScope, type Caller, type Principal } from '@platform/auth';
import { CommentCreate, CommentUpdate, parseEntityId, parseInput } from '@platform/contracts';
import { LISTINGS, parentScope, planMongoList, toConnection, type ConnectionArgs } from '@platform/listing';
import type { CommentDocument, CommentRepository } from '../data-access/comment-repository';
import type { PostRepository } from '../data-access/post-repository';
import { actingUserId } from './caller';
import type { DeletionGuard } from './deletion-guard';

export class CommentService {
  constructor(
    private readonly comments: CommentRepository,
    private readonly posts: PostRepository,
    private readonly guard: DeletionGuard,
    private readonly cursorSecret: Buffer,
  ) {}

  /** A comment, optionally only if it is on the given post (REST nests comments under their post). */
  async get(caller: Caller, rawId: unknown, rawPostId?: unknown): Promise<CommentDocument | null> {
    requireScope(caller.principal, 'posts:read', caller.authError);
    const comment = await this.comments.findById(parseEntityId(rawId, 'id'));
    if (!comment) return null;
    if (
      rawPostId !== undefined &&
      rawPostId !== null &&
      comment.postId !== parseEntityId(rawPostId, 'postId')
    )
      return null;
    return comment;
  }

  /** The comments of one post; 404 when the post does not exist. */
  async list(caller: Caller, rawPostId: unknown, args: ConnectionArgs) {
    requireScope(caller.principal, 'posts:read', caller.authError);
    const postId = parseEntityId(rawPostId, 'postId');
    // A post's comments are their own listing: a cursor of another post's comments is refused.
    const scope = parentScope('post', postId);
    const plan = planMongoList(LISTINGS.comments, args, this.cursorSecret, { facadeCall: caller.facadeCall, scope });
    const [post, docs] = await Promise.all([this.posts.findById(postId), this.comments.list(postId, plan)]);
    if (!post) throw notFound('Post', postId);
    return toConnection(
      docs,
      plan,
      LISTINGS.comments,
      args,
      this.cursorSecret,
      (filter) => this.comments.count(postId, filter),
      scope,
    );
  }

  async create(caller: Caller, rawPostId: unknown, rawInput: unknown): Promise<CommentDocument> {
    const principal = requireScope(caller.principal, 'posts:write', caller.authError);
    const authorId = actingUserId(principal);
    const postId = parseEntityId(rawPostId, 'postId');
    const input = parseInput(CommentCreate, rawInput ?? {}, 'input');
    const post = await this.posts.findById(postId);
    if (!post) throw notFound('Post', postId);
    const now = new Date();
    const comment = await this.comments.insertWithNewId((id) => ({
      _id: id,
      postId,
      authorId,
      body: input.body,
      createdAt: now,
      updatedAt: now,
    }));
    await this.guard.keepUnlessDeleted(authorId, post, () => this.comments.deleteById(comment._id));
    return comment;
  }

  async update(
    caller: Caller,
    rawId: unknown,
    rawInput: unknown,
    rawPostId?: unknown,
  ): Promise<CommentDocument> {
    const principal = requireScope(caller.principal, 'posts:write', caller.authError);
    const id = parseEntityId(rawId, 'id');
    const input = parseInput(CommentUpdate, rawInput ?? {}, 'input');
    const comment = await this.requireWritable(principal, id, rawPostId);
    if (input.body === undefined) return comment;
    const updated = await this.comments.update(id, input.body, new Date());
    if (!updated) throw notFound('Comment', id);
    return updated;
  }

  async delete(caller: Caller, rawId: unknown, rawPostId?: unknown): Promise<boolean> {
    const principal = requireScope(caller.principal, 'posts:write', caller.authError);
    const id = parseEntityId(rawId, 'id');
    await this.requireWritable(principal, id, rawPostId);
    if (!(await this.comments.deleteById(id))) throw notFound('Comment', id);
    return true;
  }

  /** 404 (also when the comment is on another post than the one named) before 403 (not the author, not an admin). */
  private async requireWritable(
    principal: Principal,
    id: number,
    rawPostId: unknown,
  ): Promise<CommentDocument> {
    const comment = await this.comments.findById(id);
    const postId =
      rawPostId === undefined || rawPostId === null ? undefined : parseEntityId(rawPostId, 'postId');
    if (!comment || (postId !== undefined && comment.postId !== postId)) throw notFound('Comment', id);
    requireOwnerOrAdmin(principal, comment.authorId);
    return comment;
  }
}
