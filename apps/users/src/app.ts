/** Assembles the users subgraph from its dependencies; main.ts listens, tests call it in-process. */
import { deriveCursorSecret } from '@platform/listing';
import { startSubgraph, type StartedSubgraph, type SubgraphAppDeps } from '@platform/graphql-server';
import typeDefs from './schema.graphql';
import { UserRepository } from './data-access/user-repository';
import { UserService, type AccountPurger, type CredentialStore } from './domain/user-service';
import { UserListing } from './domain/user-listing';
import { createUserLoaders, type UsersContext } from './context';
import { resolvers } from './resolvers';

export interface UsersAppDeps extends SubgraphAppDeps {
  credentials: CredentialStore;
  purger: AccountPurger;
}

export interface UsersApp extends StartedSubgraph<UsersContext> {
  users: UserService;
}

export async function createUsersApp(deps: UsersAppDeps): Promise<UsersApp> {
  const repository = new UserRepository(deps.db);
  const users = new UserService(repository, deps.credentials, deps.purger, deps.logger, deps.events);
  const listing = new UserListing(users, repository, deriveCursorSecret(deps.jwtSecret));
  const { server, handler } = await startSubgraph<UsersContext>({
    ...deps,
    typeDefs,
    resolvers,
    services: { users, listing },
    loaders: () => createUserLoaders(repository),
  });
  return { server, handler, users };
}
