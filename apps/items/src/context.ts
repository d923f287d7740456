/** Per-request context of the items subgraph: caller, request id, logger, batched loaders, services. */
import DataLoader from 'dataloader';
import type { BaseSubgraphContext } from '@platform/graphql-server';
import type { ItemDocument, ItemRepository } from './data-access/item-repository';
import type { ItemService } from './domain/item-service';

export interface ItemsContext extends BaseSubgraphContext {
  loaders: ItemLoaders;
  services: { items: ItemService };
}

export interface ItemLoaders {
  itemById: DataLoader<number, ItemDocument | null>;
  /** User.items: one `$in` query on ownerId per request (per distinct `first`), grouped and capped per owner. */
  itemsByOwner(first: number): DataLoader<number, ItemDocument[]>;
}

export function createItemLoaders(repository: ItemRepository): ItemLoaders {
  const byOwner = new Map<number, DataLoader<number, ItemDocument[]>>();
  return {
    itemById: new DataLoader<number, ItemDocument | null>(async (ids) => {
      const found = await repository.findByIds(ids);
      const byId = new Map(found.map((item) => [item._id, item]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    itemsByOwner(first) {
      let loader = byOwner.get(first);
      if (!loader) {
        loader = new DataLoader<number, ItemDocument[]>(async (ownerIds) => {
          const grouped = new Map<number, ItemDocument[]>(ownerIds.map((id) => [id, []]));
          for (const item of await repository.findByOwners(ownerIds)) {
            const list = item.ownerId === null ? undefined : grouped.get(item.ownerId);
            if (list && list.length < first) list.push(item);
          }
          return ownerIds.map((id) => grouped.get(id) ?? []);
        });
        byOwner.set(first, loader);
      }
      return loader;
    },
  };
}
