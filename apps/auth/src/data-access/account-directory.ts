/** Role and state of an account, read from the users subgraph (their single source of truth) over its internal API. */
import type { InternalGraphQLClient } from '@platform/service';
import type { Role } from '@platform/auth';
import type { EventActor } from '@platform/events';

export interface AccountStatus {
  id: number;
  username: string;
  role: Role;
  isActive: boolean;
  /** How many times the account's access tokens were revoked: the `pwv` of the tokens issued now. */
  passwordVersion: number;
}

/** The users subgraph's view of an account; null when there is no such user. */
export interface AccountDirectory {
  status(userId: number, requestId: string): Promise<AccountStatus | null>;
  /**
   * Every access token of the user issued until now stops working (the gateway checks within its cache TTL); `actor`
   * asked for it (the event's actor).
   */
  revokeAccessTokens(
    userId: number,
    requestId: string,
    expectedVersion: number | null | undefined,
    actor: ResetActor,
  ): Promise<void>;
}

/** Who asked for a password reset: the caller as an event names it (libs/events actorOf). */
export type ResetActor = EventActor;

const REVOKE_ACCESS_TOKENS = /* GraphQL */ `
  mutation RevokeAccessTokens($id: ID!, $expectedVersion: Int, $actorType: String, $actorId: ID) {
    _revokeAccessTokens(id: $id, expectedVersion: $expectedVersion, actorType: $actorType, actorId: $actorId)
  }
`;

const ACCOUNT_STATUS = /* GraphQL */ `
  query AccountStatus($id: ID!) {
    _accountStatus(id: $id) { id username role isActive passwordVersion }
  }
`;

interface AccountStatusData {
  _accountStatus: { id: string; username: string; role: Role; isActive: boolean; passwordVersion: number } | null;
}

export class UsersAccountDirectory implements AccountDirectory {
  constructor(private readonly users: InternalGraphQLClient) {}

  async status(userId: number, requestId: string): Promise<AccountStatus | null> {
    const data = await this.users.request<AccountStatusData>(ACCOUNT_STATUS, { id: String(userId) }, requestId);
    const found = data._accountStatus;
    return (
      found && {
        id: Number(found.id),
        username: found.username,
        role: found.role,
        isActive: found.isActive,
        passwordVersion: found.passwordVersion,
      }
    );
  }

  async revokeAccessTokens(
    userId: number,
    requestId: string,
    expectedVersion: number | null | undefined,
    actor: ResetActor,
  ): Promise<void> {
    await this.users.request(
      REVOKE_ACCESS_TOKENS,
      { id: String(userId), expectedVersion: expectedVersion ?? null, actorType: actor.type, actorId: actor.id === null ? null : String(actor.id) },
      requestId,
    );
  }
}
