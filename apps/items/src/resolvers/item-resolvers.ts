/** Resolvers of the Item type: field mapping from the stored document, the owner reference, and entity lookups. */
import { fromCents } from '@platform/contracts';
import { entityReference } from '@platform/graphql-server';
import type { ItemDocument } from '../data-access/item-repository';
import type { ItemsContext } from '../context';
import type { Resolvers } from '../__generated__/resolvers-types';

export const itemResolvers = {
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
} satisfies Resolvers;
