/** Resolvers of the Comment type: field mapping, the author and post references, entity lookups (batched). */
import { requireScope } from '@platform/auth';
import type { CommentDocument } from '../data-access/comment-repository';
import { isEntityId } from '@platform/contracts';
import type { PostsContext } from '../context';

export const commentResolvers = {
  Comment: {
    id: (comment: CommentDocument) => String(comment._id),
    postId: (comment: CommentDocument) => String(comment.postId),
    post: (comment: CommentDocument, _: unknown, context: PostsContext) =>
      context.loaders.postById.load(comment.postId),
    authorId: (comment: CommentDocument) => String(comment.authorId),
    author: (comment: CommentDocument) => ({ __typename: 'User', id: String(comment.authorId) }),
    createdAt: (comment: CommentDocument) => comment.createdAt.toISOString(),
    updatedAt: (comment: CommentDocument) => comment.updatedAt.toISOString(),
    __resolveReference: (reference: { id: string }, context: PostsContext) => {
      requireScope(context.principal, 'posts:read', context.authError);
      return isEntityId(reference.id) ? context.loaders.commentById.load(Number(reference.id)) : null;
    },
  },
};
