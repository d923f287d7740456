/** Entry point of the users subgraph process. */
// First: tracing hooks the modules the imports below load (libs/tracing/src/tracing.ts).
import './tracing';
import { InternalGraphQLClient } from '@platform/service';
import { runSubgraph } from '@platform/graphql-server';
import { loadUsersEnvironment } from './environment';
import { createUsersApp } from './app';
import { userIndexes } from './data-access/user-repository';
import { AuthCredentialStore } from './data-access/auth-credential-store';
import { FederatedAccountPurger } from './data-access/account-purger';
import { startAdminBootstrap } from './bootstrap-admin';

let clients: InternalGraphQLClient[] = [];
let bootstrap: ReturnType<typeof startAdminBootstrap> | undefined;

runSubgraph({
  name: 'users',
  loadEnvironment: loadUsersEnvironment,
  indexes: userIndexes,
  // Development and tests: each request's MongoDB commands in `extensions.mongoCommands` (write round trips, ADR 0020).
  monitorCommands: true,
  createApp: async ({ env, logger, deps }) => {
    const internal = { caller: 'users', jwtSecret: env.jwtSecret, subgraphSecret: env.subgraphSecret };
    const auth = new InternalGraphQLClient(env.AUTH_SUBGRAPH_URL, internal);
    const items = new InternalGraphQLClient(env.ITEMS_SUBGRAPH_URL, internal);
    const posts = new InternalGraphQLClient(env.POSTS_SUBGRAPH_URL, internal);
    const events = new InternalGraphQLClient(env.EVENTS_SUBGRAPH_URL, internal);
    clients = [auth, items, posts, events];
    const app = await createUsersApp({
      ...deps,
      credentials: new AuthCredentialStore(auth),
      purger: new FederatedAccountPurger({ auth, items, posts, events }),
    });
    if (env.BOOTSTRAP_ADMIN_USERNAME && env.BOOTSTRAP_ADMIN_PASSWORD) {
      bootstrap = startAdminBootstrap(
        app.users,
        {
          username: env.BOOTSTRAP_ADMIN_USERNAME,
          password: env.BOOTSTRAP_ADMIN_PASSWORD,
          email:
            env.BOOTSTRAP_ADMIN_EMAIL ?? `${env.BOOTSTRAP_ADMIN_USERNAME.toLowerCase()}@admin.example.com`,
        },
        logger,
      );
    }
    return app;
  },
  // Not ready until the bootstrap admin exists (it waits for the auth subgraph).
  ready: () => bootstrap?.done() ?? true,
  close: async () => {
    bootstrap?.stop();
    await Promise.all(clients.map((client) => client.close()));
  },
});
