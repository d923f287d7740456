/** Per-request context of the auth subgraph. */
import type { AppError } from '@platform/errors';
import type { Principal } from '@platform/auth';
import type { Logger } from '@platform/logging';
import type { CredentialService } from './domain/credential-service';
import type { TokenService } from './domain/token-service';
import type { ApiKeyService } from './domain/api-key-service';

export interface AuthContext {
  principal: Principal | null;
  authError: AppError | null;
  requestId: string;
  logger: Logger;
  services: { credentials: CredentialService; apiKeys: ApiKeyService; tokens: TokenService };
}
