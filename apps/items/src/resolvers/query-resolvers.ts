/** Root queries of the items subgraph. */
import { recordQueries } from '@platform/graphql-server';
import type { ItemsContext } from '../context';
import type { Resolvers } from '../__generated__/resolvers-types';

export const queryResolvers = {
  Query: recordQueries({ one: 'item', list: 'items' }, (context: ItemsContext) => context.services.items),
} satisfies Resolvers;
