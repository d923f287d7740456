/** The User entity as this subgraph extends it: a user's posts, batched across every user in the response. */
import { userRecordsResolvers } from '@platform/graphql-server';
import type { PostsContext } from '../context';
import type { Resolvers } from '../__generated__/resolvers-types';

export const userResolvers = userRecordsResolvers('posts', 'posts:read', (context: PostsContext, first) =>
  context.loaders.postsByAuthor(first),
) satisfies Resolvers;
