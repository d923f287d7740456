/**
 * A webhook owner's rights at delivery time, read from the users subgraph (its internal `_accountStatus`, the one the
 * auth subgraph reads at every login): missing or deactivated accounts read nothing; otherwise the role's scopes.
 * Read per delivery, never cached: a deactivated owner's endpoints stop at the next attempt.
 */
import { scopesForRole, type Role, type Secrets } from '@platform/auth';
import type { EventReader } from '@platform/events';
import { InternalGraphQLClient } from '@platform/service';

const ACCOUNT_STATUS = 'query OwnerStatus($id: ID!) { _accountStatus(id: $id) { role isActive } }';

export interface OwnerRights {
  /** The owner as a reader of events, or null when the account is gone or deactivated. */
  readerOf(ownerId: number): Promise<EventReader | null>;
  close(): Promise<void>;
}

export function usersOwnerRights(options: {
  usersUrl: string;
  jwtSecret: Secrets;
  subgraphSecret: Secrets;
}): OwnerRights {
  const client = new InternalGraphQLClient(options.usersUrl, {
    caller: 'deliveries',
    jwtSecret: options.jwtSecret,
    subgraphSecret: options.subgraphSecret,
    upstream: 'users',
  });
  return {
    async readerOf(ownerId) {
      const { _accountStatus: status } = await client.request<{
        _accountStatus: { role: Role; isActive: boolean } | null;
      }>(ACCOUNT_STATUS, { id: String(ownerId) });
      if (!status || !status.isActive) return null;
      return { kind: 'user', userId: ownerId, role: status.role, scopes: scopesForRole(status.role) };
    },
    close: () => client.close(),
  };
}
