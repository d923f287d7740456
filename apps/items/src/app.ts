/** Assembles the items subgraph from its dependencies; main.ts listens, tests call it in-process. */
import { deriveCursorSecret } from '@platform/listing';
import { DeletionMarks } from '@platform/mongo';
import { startSubgraph, type StartedSubgraph, type SubgraphAppDeps } from '@platform/graphql-server';
import typeDefs from './schema.graphql';
import { ItemRepository } from './data-access/item-repository';
import { ItemService } from './domain/item-service';
import { createItemLoaders, type ItemsContext } from './context';
import { resolvers } from './resolvers';

export type ItemsAppDeps = SubgraphAppDeps;

export type ItemsApp = StartedSubgraph<ItemsContext>;

export async function createItemsApp(deps: ItemsAppDeps): Promise<ItemsApp> {
  const repository = new ItemRepository(deps.db);
  const items = new ItemService(repository, deriveCursorSecret(deps.jwtSecret), new DeletionMarks(deps.db), deps.events);
  return startSubgraph<ItemsContext>({
    ...deps,
    typeDefs,
    resolvers,
    services: { items },
    loaders: () => createItemLoaders(repository),
  });
}
