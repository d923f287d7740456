/** The User entity as this subgraph extends it: a user's items, batched across every user in the response. */
import { userRecordsResolvers } from '@platform/graphql-server';
import type { ItemsContext } from '../context';
import type { Resolvers } from '../__generated__/resolvers-types';

export const userResolvers = userRecordsResolvers('items', 'items:read', (context: ItemsContext, first) =>
  context.loaders.itemsByOwner(first),
) satisfies Resolvers;
