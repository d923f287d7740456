/** Assembles the items subgraph from its dependencies; main.ts listens, tests call it in-process. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from 'mongodb';
import type { ApolloServer } from '@apollo/server';
import type { Logger } from '@platform/logging';
import { deriveCursorSecret } from '@platform/listing';
import type { SubgraphWrites } from '@platform/read-cache';
import { startSubgraph, type GraphQLLimits, type MongoCommandStats } from '@platform/graphql-server';
import typeDefs from './schema.graphql';
import { ItemRepository } from './data-access/item-repository';
import { ItemService } from './domain/item-service';
import { createItemLoaders, type ItemsContext } from './context';
import { itemResolvers } from './resolvers/item-resolvers';
import { userResolvers } from './resolvers/user-resolvers';
import { queryResolvers } from './resolvers/query-resolvers';
import { mutationResolvers } from './resolvers/mutation-resolvers';

export interface ItemsAppDeps {
  /** Operation limits (GRAPHQL_MAX_*); the defaults when absent. */
  limits?: GraphQLLimits | undefined;
  /** Read-cache invalidation after each mutation (runSubgraph's); absent: none (tests in-process). */
  writes?: SubgraphWrites | undefined;
  db: Db;
  logger: Logger;
  jwtSecret: string;
  production: boolean;
  maxBodyBytes: number;
  /** Development only: report each request's MongoDB commands in `extensions.mongoCommands`. */
  commandStats?: MongoCommandStats | undefined;
}

export interface ItemsApp {
  server: ApolloServer<ItemsContext>;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export async function createItemsApp(deps: ItemsAppDeps): Promise<ItemsApp> {
  const repository = new ItemRepository(deps.db);
  const items = new ItemService(repository, deriveCursorSecret(deps.jwtSecret));
  const { server, handler } = await startSubgraph<ItemsContext>({
    typeDefs,
    resolvers: { ...itemResolvers, ...userResolvers, ...queryResolvers, ...mutationResolvers },
    production: deps.production,
    limits: deps.limits,
    writes: deps.writes,
    jwtSecret: deps.jwtSecret,
    maxBodyBytes: deps.maxBodyBytes,
    logger: deps.logger,
    commandStats: deps.commandStats,
    context: (base) => ({
      ...base,
      loaders: createItemLoaders(repository),
      services: { items },
    }),
  });
  return { server, handler };
}
