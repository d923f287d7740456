/** Root queries of the posts subgraph: posts, and comments (optionally, and for listings necessarily, under a post). */
import { recordQueries } from '@platform/graphql-server';
import type { PostsContext } from '../context';

export const queryResolvers = {
  Query: {
    ...recordQueries({ one: 'post', list: 'posts' }, (context: PostsContext) => context.services.posts),
    ...recordQueries(
      { one: 'comment', list: 'comments' },
      (context: PostsContext) => context.services.comments,
      'postId',
    ),
  },
};
