/** Root mutations of the posts subgraph; the domain checks scope, authorship, input and `expectedVersion` (If-Match). */
import { recordMutations } from '@platform/graphql-server';
import type { PostsContext } from '../context';
import type { Resolvers } from '../__generated__/resolvers-types';

type IdArgs = { id: string };
const posts = (context: PostsContext) => context.services.posts;
const comments = (context: PostsContext) => context.services.comments;

export const mutationResolvers = {
  Mutation: {
    ...recordMutations('Post', posts),
    likePost: (_: unknown, args: IdArgs, context: PostsContext) => posts(context).like(context, args.id),
    unlikePost: (_: unknown, args: IdArgs, context: PostsContext) => posts(context).unlike(context, args.id),
    ...recordMutations('Comment', comments, { replace: false, parent: 'postId' }),
    _purgeAuthor: (_: unknown, args: { userId: string }, context: PostsContext) =>
      posts(context).purgeAuthor(context, args.userId),
  },
} satisfies Resolvers;
