/** Per-request context of the auth subgraph. */
import type { BaseSubgraphContext } from '@platform/graphql-server';
import type { CredentialService } from './domain/credential-service';
import type { TokenService } from './domain/token-service';
import type { ApiKeyService } from './domain/api-key-service';

export interface AuthContext extends BaseSubgraphContext {
  services: { credentials: CredentialService; apiKeys: ApiKeyService; tokens: TokenService };
}
