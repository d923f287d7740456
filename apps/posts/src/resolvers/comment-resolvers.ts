/** Resolvers of the Comment type: field mapping, the author and post references, entity lookups (batched). */
import { entityReference } from '@platform/graphql-server';
import type { CommentDocument } from '../data-access/comment-repository';
import type { PostsContext } from '../context';
import type { Resolvers } from '../__generated__/resolvers-types';

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
    version: (comment: CommentDocument) => comment.version ?? 0,
    __resolveReference: entityReference('posts:read', (context: PostsContext) => context.loaders.commentById),
  },
} satisfies Resolvers;
