/** Resolvers of the Post type: field mapping, the author reference, like count and comments (batched), entity lookups (batched). */
import { parseNestedFirst } from '@platform/listing';
import { entityReference } from '@platform/graphql-server';
import type { PostDocument } from '../data-access/post-repository';
import type { PostsContext } from '../context';
import type { Resolvers } from '../__generated__/resolvers-types';

export const postResolvers = {
  Post: {
    id: (post: PostDocument) => String(post._id),
    authorId: (post: PostDocument) => String(post.authorId),
    author: (post: PostDocument) => ({ __typename: 'User', id: String(post.authorId) }),
    likeCount: (post: PostDocument, _: unknown, context: PostsContext) =>
      context.loaders.likeCountByPost.load(post._id),
    createdAt: (post: PostDocument) => post.createdAt.toISOString(),
    updatedAt: (post: PostDocument) => post.updatedAt.toISOString(),
    version: (post: PostDocument) => post.version ?? 0,
    comments: (post: PostDocument, args: { first?: number | null }, context: PostsContext) =>
      context.loaders.commentsByPost(parseNestedFirst(args.first)).load(post._id),
    __resolveReference: entityReference('posts:read', (context: PostsContext) => context.loaders.postById),
  },
} satisfies Resolvers;
