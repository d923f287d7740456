/**
 * Resolvers of the posts subgraph, all in one map: root queries (posts, and comments: optionally, and for listings
 * necessarily, under a post); root mutations (the domain checks scope, authorship, input and `expectedVersion`
 * (If-Match)); the Post and Comment types (derived from their declarations: fields from the stored documents, the
 * author references; a post's like count and comments and a comment's post batched; entity lookups batched); and the
 * User entity as this subgraph extends it (a user's posts, batched across every user in the response).
 */
import { requireScope } from '@platform/auth';
import { comments as commentResource, parseEntityId, posts as postResource } from '@platform/contracts';
import { entityResolvers, recordMutations, recordQueries, userRecordsResolvers } from '@platform/graphql-server';
import type { PostDocument } from './data-access/post-repository';
import type { CommentDocument } from './data-access/comment-repository';
import type { PostsContext } from './context';
import type { CommentResolvers, PostResolvers, Resolvers } from './__generated__/resolvers-types';

type IdArgs = { id: string };
const posts = (context: PostsContext) => context.services.posts;
const comments = (context: PostsContext) => context.services.comments;

export const resolvers = {
  Query: {
    ...recordQueries({ one: 'post', list: 'posts' }, posts),
    ...recordQueries({ one: 'comment', list: 'comments' }, comments, 'postId'),
    // A reference only: the users subgraph resolves it (null when no such user), as for a post's author.
    articleAuthor: (_: unknown, args: IdArgs, context: PostsContext) => {
      requireScope(context.principal, 'posts:read', context.authError);
      return { __typename: 'User' as const, id: String(parseEntityId(args.id, 'id')) };
    },
  },
  Mutation: {
    ...recordMutations('Post', posts),
    likePost: (_: unknown, args: IdArgs, context: PostsContext) => posts(context).like(context, args.id),
    unlikePost: (_: unknown, args: IdArgs, context: PostsContext) => posts(context).unlike(context, args.id),
    ...recordMutations('Comment', comments, { replace: false, parent: 'postId' }),
    _purgeAuthor: (_: unknown, args: { userId: string }, context: PostsContext) =>
      posts(context).purgeAuthor(context, args.userId),
  },
  Post: entityResolvers(postResource, (context: PostsContext) => context.loaders.postById, {
    computed: {
      likeCount: (post, _args, context) => context.loaders.likeCountByPost.load((post as PostDocument)._id),
    },
    load: {
      comments: (post, context, first) => context.loaders.commentsByPost(first).load((post as PostDocument)._id),
    },
  }) as PostResolvers,
  Comment: entityResolvers(commentResource, (context: PostsContext) => context.loaders.commentById, {
    load: { post: (comment, context) => context.loaders.postById.load((comment as CommentDocument).postId) },
  }) as CommentResolvers,
  ...userRecordsResolvers('posts', 'posts:read', (context: PostsContext, first) =>
    context.loaders.postsByAuthor(first),
  ),
} satisfies Resolvers;
