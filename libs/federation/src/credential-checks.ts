/**
 * The credential checks of whatever executes supergraph operations (the gateway process, the facade's embedded
 * executor), built once from the supergraph settings: API keys exchanged at the auth subgraph, bearer tokens checked
 * against the account state at the users subgraph, each over its own internal client.
 */
import type { ResolvedSecrets, SupergraphEnvironment } from '@platform/config';
import { InternalGraphQLClient } from '@platform/service';
import { AccessTokenStatus } from './access-token-status';
import { ApiKeyExchange } from './api-key-exchange';

export interface CredentialChecks {
  apiKeys: ApiKeyExchange;
  tokenStatus: AccessTokenStatus;
  /** Closes both internal clients (after the executor stopped). */
  close(): Promise<void>;
}

export function createCredentialChecks(
  env: SupergraphEnvironment & ResolvedSecrets,
  caller: string,
): CredentialChecks {
  const client = (url: string, upstream: string) =>
    new InternalGraphQLClient(url, {
      caller,
      upstream,
      jwtSecret: env.jwtSecret,
      subgraphSecret: env.subgraphSecret,
      timeoutMs: env.SUBGRAPH_TIMEOUT_MS,
    });
  // Straight to the subgraphs: `_verifyApiKey` and `_accountStatus` are not in the supergraph's API schema.
  const auth = client(env.AUTH_SUBGRAPH_URL, 'auth-internal');
  const users = client(env.USERS_SUBGRAPH_URL, 'users-internal');
  return {
    apiKeys: new ApiKeyExchange({
      auth,
      jwtSecret: env.jwtSecret,
      cacheTtlMs: env.API_KEY_CACHE_TTL_MS,
      cacheMaxEntries: env.API_KEY_CACHE_MAX_ENTRIES,
    }),
    tokenStatus: new AccessTokenStatus({
      users,
      jwtSecret: env.jwtSecret,
      cacheTtlMs: env.TOKEN_STATUS_CACHE_TTL_MS,
    }),
    close: async () => {
      await Promise.all([auth.close(), users.close()]);
    },
  };
}
