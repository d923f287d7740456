/** The User entity as this subgraph extends it: a user's posts, batched across every user in the response. */
import { userRecordsResolvers } from '@platform/graphql-server';
import type { PostsContext } from '../context';

export const userResolvers = userRecordsResolvers('posts', 'posts:read', (context: PostsContext, first) =>
  context.loaders.postsByAuthor(first),
);
