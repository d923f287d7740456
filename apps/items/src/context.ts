/** Per-request context of the items subgraph: caller, request id, logger, batched loaders, services. */
import type DataLoader from 'dataloader';
import { byIdLoader, groupedLoaders, type BaseSubgraphContext } from '@platform/graphql-server';
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
  return {
    itemById: byIdLoader((ids) => repository.findByIds(ids)),
    itemsByOwner: groupedLoaders(
      (ids) => repository.findByParents('ownerId', ids),
      (item) => item.ownerId,
    ),
  };
}
