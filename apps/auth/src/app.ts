/** Assembles the auth subgraph from its dependencies; main.ts listens, tests call it in-process. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from 'mongodb';
import type { ApolloServer } from '@apollo/server';
import type { Logger } from '@platform/logging';
import { authenticateRequest, createGraphQLHandler, createSubgraphServer } from '@platform/service';
import typeDefs from './schema.graphql';
import { CredentialRepository } from './data-access/credential-repository';
import { CredentialService } from './domain/credential-service';
import type { AuthContext } from './context';
import { mutationResolvers } from './resolvers/mutation-resolvers';
import { queryResolvers } from './resolvers/query-resolvers';

export interface AuthAppDeps {
  db: Db;
  logger: Logger;
  jwtSecret: string;
  production: boolean;
  maxBodyBytes: number;
}

export interface AuthApp {
  server: ApolloServer<AuthContext>;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export async function createAuthApp(deps: AuthAppDeps): Promise<AuthApp> {
  const credentials = new CredentialService(new CredentialRepository(deps.db));
  const server = createSubgraphServer<AuthContext>(typeDefs, { ...queryResolvers, ...mutationResolvers }, { production: deps.production });
  await server.start();
  const handler = createGraphQLHandler<AuthContext>({
    server,
    maxBodyBytes: deps.maxBodyBytes,
    logger: deps.logger,
    context: async (req, requestId, logger) => ({
      ...authenticateRequest(req.headers, deps.jwtSecret),
      requestId,
      logger,
      services: { credentials },
    }),
  });
  return { server, handler };
}
