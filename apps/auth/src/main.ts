/** Entry point of the auth subgraph process. */
import { InternalGraphQLClient, runSubgraph } from '@platform/service';
import { loadAuthEnvironment } from './environment';
import { createAuthApp } from './app';
import { credentialIndexes } from './data-access/credential-repository';
import { apiKeyIndexes } from './data-access/api-key-repository';
import { UsersAccountDirectory } from './data-access/account-directory';
import { refreshTokenIndexes } from './data-access/refresh-token-repository';

let usersClient: InternalGraphQLClient | undefined;

runSubgraph({
  name: 'auth',
  loadEnvironment: loadAuthEnvironment,
  indexes: [...credentialIndexes, ...apiKeyIndexes, ...refreshTokenIndexes],
  createApp: ({ env, mongo, logger, production }) => {
    // Role and is_active live in the users subgraph: login, refresh and API-key checks read them there.
    usersClient = new InternalGraphQLClient(env.USERS_SUBGRAPH_URL, 'auth', env.jwtSecret);
    const accounts = new UsersAccountDirectory(usersClient);
    return createAuthApp({
      db: mongo.db,
      logger,
      jwtSecret: env.jwtSecret,
      production,
      maxBodyBytes: env.MAX_BODY_BYTES,
      apiKeyOwners: accounts,
      bootstrapApiKey: env.BOOTSTRAP_API_KEY,
      accounts,
      accessTokenTtl: env.ACCESS_TOKEN_TTL,
      refreshTokenTtl: env.REFRESH_TOKEN_TTL,
    });
  },
  close: async () => {
    await usersClient?.close();
  },
});
