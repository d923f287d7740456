/** Assembles the items subgraph from its dependencies; main.ts listens, tests call it in-process. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from 'mongodb';
import type { ApolloServer } from '@apollo/server';
import type { Logger } from '@platform/logging';
import { authenticateRequest, createGraphQLHandler, createSubgraphServer } from '@platform/service';
import typeDefs from './schema.graphql';
import type { ItemsContext } from './context';
import { queryResolvers } from './resolvers/query-resolvers';

export interface ItemsAppDeps {
  db: Db;
  logger: Logger;
  jwtSecret: string;
  production: boolean;
  maxBodyBytes: number;
}

export interface ItemsApp {
  server: ApolloServer<ItemsContext>;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export async function createItemsApp(deps: ItemsAppDeps): Promise<ItemsApp> {
  const server = createSubgraphServer<ItemsContext>(typeDefs, { ...queryResolvers }, { production: deps.production });
  await server.start();
  const handler = createGraphQLHandler<ItemsContext>({
    server,
    maxBodyBytes: deps.maxBodyBytes,
    logger: deps.logger,
    context: async (req, requestId, logger) => ({
      ...authenticateRequest(req.headers, deps.jwtSecret),
      requestId,
      logger,
      db: deps.db,
    }),
  });
  return { server, handler };
}
