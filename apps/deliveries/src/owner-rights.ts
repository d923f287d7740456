/**
 * A webhook owner's rights at delivery time, read from the users subgraph (its internal `_accountStatus`, the one the
 * auth subgraph reads at every login): missing or deactivated accounts read nothing; otherwise the role's scopes.
 * Read per delivery, never cached: a deactivated owner's endpoints stop at the next attempt, and an owner activated
 * again receives only what happened since (`activeSince`), not what a backlog still held from while it was deactivated.
 */
import { scopesForRole, type Role, type Secrets } from '@platform/auth';
import type { EventReader } from '@platform/events';
import { InternalGraphQLClient } from '@platform/service';

const ACCOUNT_STATUS =
  'query OwnerStatus($id: ID!) { _accountStatus(id: $id) { role isActive activeSince } }';

/** The owner as a reader of events, and when its current active period began (null: never deactivated). */
export interface WebhookOwner {
  reader: EventReader;
  activeSince: Date | null;
}

export interface OwnerRights {
  /** The owner now, or null when the account is gone or deactivated. */
  ownerOf(ownerId: number): Promise<WebhookOwner | null>;
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
    async ownerOf(ownerId) {
      const { _accountStatus: status } = await client.request<{
        _accountStatus: { role: Role; isActive: boolean; activeSince: number | null } | null;
      }>(ACCOUNT_STATUS, { id: String(ownerId) });
      if (!status || !status.isActive) return null;
      return {
        reader: { kind: 'user', userId: ownerId, role: status.role, scopes: scopesForRole(status.role) },
        activeSince: status.activeSince === null ? null : new Date(status.activeSince),
      };
    },
    close: () => client.close(),
  };
}
