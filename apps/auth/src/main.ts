/** Entry point of the auth subgraph process. */
// First: tracing hooks the modules the imports below load (libs/tracing/src/tracing.ts).
import './tracing';
import { createLimiterBackend, type LimiterBackend } from '@platform/rate-limit';
import { InternalGraphQLClient } from '@platform/service';
import { runSubgraph } from '@platform/graphql-server';
import { loadAuthEnvironment } from './environment';
import { createAuthApp } from './app';
import { credentialIndexes } from './data-access/credential-repository';
import { apiKeyIndexes } from './data-access/api-key-repository';
import { UsersAccountDirectory } from './data-access/account-directory';
import { refreshTokenIndexes } from './data-access/refresh-token-repository';

let usersClient: InternalGraphQLClient | undefined;
let limiters: LimiterBackend | undefined;

runSubgraph({
  name: 'auth',
  loadEnvironment: loadAuthEnvironment,
  indexes: [...credentialIndexes, ...apiKeyIndexes, ...refreshTokenIndexes],
  createApp: async ({ env, logger, deps }) => {
    limiters = createLimiterBackend({
      redisUrl: env.REDIS_URL,
      failMode: env.RATE_LIMIT_FAIL_MODE,
      commandTimeoutMs: env.REDIS_COMMAND_TIMEOUT_MS,
      logger,
    });
    if (!(await limiters.ready(3_000)))
      logger.warn('login throttle: Redis not reachable at start; counting in-process until it is');
    const loginLimiter = limiters.create({
      keyPrefix: 'rl:login',
      points: env.LOGIN_RATE_LIMIT_POINTS,
      durationSeconds: env.RATE_LIMIT_WINDOW,
      blockDurationSeconds: env.LOGIN_RATE_LIMIT_BLOCK_SECONDS,
    });
    // Role and is_active live in the users subgraph: login, refresh and API-key checks read them there.
    usersClient = new InternalGraphQLClient(env.USERS_SUBGRAPH_URL, {
      caller: 'auth',
      jwtSecret: env.jwtSecret,
      subgraphSecret: env.subgraphSecret,
    });
    const accounts = new UsersAccountDirectory(usersClient);
    return createAuthApp({
      ...deps,
      apiKeyOwners: accounts,
      bootstrapApiKey: env.BOOTSTRAP_API_KEY,
      accounts,
      accessTokenTtl: env.ACCESS_TOKEN_TTL,
      refreshTokenTtl: env.REFRESH_TOKEN_TTL,
      loginLimiter,
    });
  },
  close: async () => {
    await usersClient?.close();
    await limiters?.close();
  },
});
