/**
 * Resolvers of the items subgraph, all in one map: root queries; root mutations (the domain checks scope, ownership,
 * input and `expectedVersion` (If-Match)); the Item type (field mapping from the stored document, the owner
 * reference, entity lookups); and the User entity as this subgraph extends it (a user's items, batched across every
 * user in the response).
 */
import { fromCents } from '@platform/contracts';
import { entityReference, recordMutations, recordQueries, userRecordsResolvers } from '@platform/graphql-server';
import type { ItemDocument } from './data-access/item-repository';
import type { ItemsContext } from './context';
import type { Resolvers } from './__generated__/resolvers-types';

const items = (context: ItemsContext) => context.services.items;

export const resolvers = {
  Query: recordQueries({ one: 'item', list: 'items' }, items),
  Mutation: {
    ...recordMutations('Item', items),
    _purgeOwner: (_: unknown, args: { userId: string }, context: ItemsContext) =>
      items(context).purgeOwner(context, args.userId),
  },
  Item: {
    id: (item: ItemDocument) => String(item._id),
    price: (item: ItemDocument) => fromCents(item.priceCents),
    version: (item: ItemDocument) => item.version ?? 0,
    ownerId: (item: ItemDocument) => (item.ownerId === null ? null : String(item.ownerId)),
    owner: (item: ItemDocument) =>
      item.ownerId === null ? null : { __typename: 'User', id: String(item.ownerId) },
    /** Batched: every Item the gateway asks about in one request is fetched with one `$in` query. */
    __resolveReference: entityReference('items:read', (context: ItemsContext) => context.loaders.itemById),
  },
  ...userRecordsResolvers('items', 'items:read', (context: ItemsContext, first) =>
    context.loaders.itemsByOwner(first),
  ),
} satisfies Resolvers;
