/**
 * Resolvers of the items subgraph, all in one map: root queries; root mutations (the domain checks scope, ownership,
 * input and `expectedVersion` (If-Match)); the Item type (derived from the item's declaration: fields from the stored
 * document, the owner reference; entity lookups, batched); and the User entity as this subgraph extends it (a user's
 * items, batched across every user in the response).
 */
import { items as itemResource } from '@platform/contracts';
import { entityResolvers, recordMutations, recordQueries, userRecordsResolvers } from '@platform/graphql-server';
import type { ItemsContext } from './context';
import type { ItemResolvers, Resolvers } from './__generated__/resolvers-types';

const items = (context: ItemsContext) => context.services.items;

export const resolvers = {
  Query: recordQueries({ one: 'item', list: 'items' }, items),
  Mutation: {
    ...recordMutations('Item', items),
    _purgeOwner: (_: unknown, args: { userId: string }, context: ItemsContext) =>
      items(context).purgeOwner(context, args.userId),
  },
  // Entity lookups batched: every Item the gateway asks about in one request is fetched with one `$in` query.
  Item: entityResolvers(itemResource, (context: ItemsContext) => context.loaders.itemById) as ItemResolvers,
  ...userRecordsResolvers('items', 'items:read', (context: ItemsContext, first) =>
    context.loaders.itemsByOwner(first),
  ),
} satisfies Resolvers;
