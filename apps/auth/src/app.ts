/** Assembles the auth subgraph from its dependencies; main.ts listens, tests call it in-process. */
import { startSubgraph, type StartedSubgraph, type SubgraphAppDeps } from '@platform/graphql-server';
import typeDefs from './schema.graphql';
import { CredentialRepository } from './data-access/credential-repository';
import { CredentialService } from './domain/credential-service';
import { RefreshTokenRepository } from './data-access/refresh-token-repository';
import type { AccountDirectory } from './data-access/account-directory';
import { TokenService } from './domain/token-service';
import { LoginThrottle } from './domain/login-throttle';
import type { Limiter } from '@platform/rate-limit';
import type { AuthContext } from './context';
import { resolvers } from './resolvers';
import { ApiKeyRepository } from './data-access/api-key-repository';
import { ApiKeyService, type ApiKeyOwners } from './domain/api-key-service';
import { DeletionMarks } from '@platform/mongo';

export interface AuthAppDeps extends SubgraphAppDeps {
  /** Role and state of a key's owner (the users subgraph's `_accountStatus`). */
  apiKeyOwners: ApiKeyOwners;
  bootstrapApiKey?: string | undefined;
  /** Role and state of an account at login and refresh (the users subgraph's `_accountStatus`). */
  accounts: AccountDirectory;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  /** The login budget per client IP + username (Redis-backed in main.ts). */
  loginLimiter: Limiter;
}

export type AuthApp = StartedSubgraph<AuthContext>;

export async function createAuthApp(deps: AuthAppDeps): Promise<AuthApp> {
  const credentialRepository = new CredentialRepository(deps.db);
  const refreshTokens = new RefreshTokenRepository(deps.db);
  const credentials = new CredentialService(credentialRepository, refreshTokens, deps.logger, deps.accounts);
  const tokens = new TokenService(
    credentialRepository,
    refreshTokens,
    deps.accounts,
    { jwtSecret: deps.jwtSecret, accessTokenTtl: deps.accessTokenTtl, refreshTokenTtl: deps.refreshTokenTtl },
    deps.logger,
    new LoginThrottle(deps.loginLimiter),
  );
  const apiKeys = new ApiKeyService(
    new ApiKeyRepository(deps.db),
    deps.apiKeyOwners,
    deps.logger,
    deps.bootstrapApiKey,
    new DeletionMarks(deps.db),
    deps.events,
  );
  return startSubgraph<AuthContext>({
    ...deps,
    typeDefs,
    resolvers,
    services: { credentials, apiKeys, tokens },
  });
}
