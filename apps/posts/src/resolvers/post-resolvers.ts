/** Resolvers of the Post type: field mapping, the author reference, like count and comments (batched), entity lookups (batched). */
import { requireScope } from '@platform/auth';
import type { PostDocument } from '../data-access/post-repository';
import { isEntityId } from '@platform/contracts';
import { parseNestedFirst } from '@platform/listing';
import type { PostsContext } from '../context';

export const postResolvers = {
  Post: {
    id: (post: PostDocument) => String(post._id),
    authorId: (post: PostDocument) => String(post.authorId),
    author: (post: PostDocument) => ({ __typename: 'User', id: String(post.authorId) }),
    likeCount: (post: PostDocument, _: unknown, context: PostsContext) =>
      context.loaders.likeCountByPost.load(post._id),
    createdAt: (post: PostDocument) => post.createdAt.toISOString(),
    updatedAt: (post: PostDocument) => post.updatedAt.toISOString(),
    comments: (post: PostDocument, args: { first?: number | null }, context: PostsContext) =>
      context.loaders.commentsByPost(parseNestedFirst(args.first)).load(post._id),
    __resolveReference: (reference: { id: string }, context: PostsContext) => {
      requireScope(context.principal, 'posts:read', context.authError);
      return isEntityId(reference.id) ? context.loaders.postById.load(Number(reference.id)) : null;
    },
  },
};
