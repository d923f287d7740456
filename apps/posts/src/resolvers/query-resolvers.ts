/** Root queries of the posts subgraph: posts, and comments (optionally, and for listings necessarily, under a post). */
import { recordQueries } from '@platform/graphql-server';
import type { PostsContext } from '../context';
import type { Resolvers } from '../__generated__/resolvers-types';

export const queryResolvers = {
  Query: {
    ...recordQueries({ one: 'post', list: 'posts' }, (context: PostsContext) => context.services.posts),
    ...recordQueries(
      { one: 'comment', list: 'comments' },
      (context: PostsContext) => context.services.comments,
      'postId',
    ),
  },
} satisfies Resolvers;
