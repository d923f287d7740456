/**
 * Resolvers of the posts subgraph, all in one map: root queries (posts, and comments: optionally, and for listings
 * necessarily, under a post); root mutations (the domain checks scope, authorship, input and `expectedVersion`
 * (If-Match)); the Post type (field mapping, the author reference, like count and comments (batched), entity lookups
 * (batched)); the Comment type (field mapping, the author and post references, entity lookups (batched)); and the
 * User entity as this subgraph extends it (a user's posts, batched across every user in the response).
 */
import { requireScope } from '@platform/auth';
import { parseEntityId } from '@platform/contracts';
import { parseNestedFirst } from '@platform/listing';
import { entityReference, recordMutations, recordQueries, userRecordsResolvers } from '@platform/graphql-server';
import type { PostDocument } from './data-access/post-repository';
import type { CommentDocument } from './data-access/comment-repository';
import type { PostsContext } from './context';
import type { Resolvers } from './__generated__/resolvers-types';

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
  ...userRecordsResolvers('posts', 'posts:read', (context: PostsContext, first) =>
    context.loaders.postsByAuthor(first),
  ),
} satisfies Resolvers;
