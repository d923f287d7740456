/** Assembles the users subgraph from its dependencies; main.ts listens, tests call it in-process. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from 'mongodb';
import type { ApolloServer } from '@apollo/server';
import type { Logger } from '@platform/logging';
import { deriveCursorSecret } from '@platform/listing';
import type { SubgraphWrites } from '@platform/read-cache';
import { startSubgraph, type GraphQLLimits } from '@platform/graphql-server';
import typeDefs from './schema.graphql';
import { UserRepository } from './data-access/user-repository';
import { UserService, type AccountPurger, type CredentialStore } from './domain/user-service';
import { UserListing } from './domain/user-listing';
import { createUserLoaders, type UsersContext } from './context';
import { userResolvers } from './resolvers/user-resolvers';
import { queryResolvers } from './resolvers/query-resolvers';
import { mutationResolvers } from './resolvers/mutation-resolvers';

export interface UsersAppDeps {
  /** Operation limits (GRAPHQL_MAX_*); the defaults when absent. */
  limits?: GraphQLLimits | undefined;
  /** Read-cache invalidation after each mutation (runSubgraph's); absent: none (tests in-process). */
  writes?: SubgraphWrites | undefined;
  db: Db;
  logger: Logger;
  jwtSecret: string;
  production: boolean;
  maxBodyBytes: number;
  credentials: CredentialStore;
  purger: AccountPurger;
}

export interface UsersApp {
  server: ApolloServer<UsersContext>;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  users: UserService;
}

export async function createUsersApp(deps: UsersAppDeps): Promise<UsersApp> {
  const repository = new UserRepository(deps.db);
  const users = new UserService(repository, deps.credentials, deps.purger, deps.logger);
  const listing = new UserListing(users, repository, deriveCursorSecret(deps.jwtSecret));
  const { server, handler } = await startSubgraph<UsersContext>({
    typeDefs,
    resolvers: { ...userResolvers, ...queryResolvers, ...mutationResolvers },
    production: deps.production,
    limits: deps.limits,
    writes: deps.writes,
    jwtSecret: deps.jwtSecret,
    maxBodyBytes: deps.maxBodyBytes,
    logger: deps.logger,
    context: (base) => ({
      ...base,
      loaders: createUserLoaders(repository),
      services: { users, listing },
    }),
  });
  return { server, handler, users };
}
