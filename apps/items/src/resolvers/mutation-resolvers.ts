/** Root mutations of the items subgraph; the domain checks scope, ownership, input and `expectedVersion` (If-Match). */
import { recordMutations } from '@platform/graphql-server';
import type { ItemsContext } from '../context';
import type { Resolvers } from '../__generated__/resolvers-types';

const items = (context: ItemsContext) => context.services.items;

export const mutationResolvers = {
  Mutation: {
    ...recordMutations('Item', items),
    _purgeOwner: (_: unknown, args: { userId: string }, context: ItemsContext) =>
      items(context).purgeOwner(context, args.userId),
  },
} satisfies Resolvers;
