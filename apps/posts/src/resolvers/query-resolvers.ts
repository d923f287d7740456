/** Root queries of the posts subgraph. */
import type { ConnectionArgs } from '@platform/listing';
import type { PostsContext } from '../context';

export const queryResolvers = {
  Query: {
    post: (_: unknown, args: { id: string }, context: PostsContext) =>
      context.services.posts.get(context, args.id),
    posts: (_: unknown, args: ConnectionArgs, context: PostsContext) =>
      context.services.posts.list(context, args),
    comment: (_: unknown, args: { id: string; postId?: string | null }, context: PostsContext) =>
      context.services.comments.get(context, args.id, args.postId),
    comments: (_: unknown, args: ConnectionArgs & { postId: string }, context: PostsContext) => {
      const { postId, ...connectionArgs } = args;
      return context.services.comments.list(context, postId, connectionArgs);
    },
  },
};
