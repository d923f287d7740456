/** Root mutations of the posts subgraph; the domain checks scope, authorship and input. */
import type { PostsContext } from '../context';

type IdArgs = { id: string };
type IdInputArgs = { id: string; input: unknown };

export const mutationResolvers = {
  Mutation: {
    createPost: (_: unknown, args: { input: unknown }, context: PostsContext) =>
      context.services.posts.create(context, args.input),
    replacePost: (_: unknown, args: IdInputArgs, context: PostsContext) =>
      context.services.posts.replace(context, args.id, args.input),
    updatePost: (_: unknown, args: IdInputArgs, context: PostsContext) =>
      context.services.posts.update(context, args.id, args.input),
    deletePost: (_: unknown, args: IdArgs, context: PostsContext) =>
      context.services.posts.delete(context, args.id),
    likePost: (_: unknown, args: IdArgs, context: PostsContext) =>
      context.services.posts.like(context, args.id),
    unlikePost: (_: unknown, args: IdArgs, context: PostsContext) =>
      context.services.posts.unlike(context, args.id),
    createComment: (_: unknown, args: { postId: string; input: unknown }, context: PostsContext) =>
      context.services.comments.create(context, args.postId, args.input),
    updateComment: (_: unknown, args: IdInputArgs & { postId?: string | null }, context: PostsContext) =>
      context.services.comments.update(context, args.id, args.input, args.postId),
    deleteComment: (_: unknown, args: IdArgs & { postId?: string | null }, context: PostsContext) =>
      context.services.comments.delete(context, args.id, args.postId),
    _purgeAuthor: (_: unknown, args: { userId: string }, context: PostsContext) =>
      context.services.posts.purgeAuthor(context, args.userId),
  },
};
