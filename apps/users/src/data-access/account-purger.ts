/**
 * Deleting an account cascades: items drops the user's items, posts its posts and comments, events its webhooks and
 * the personal data of its events, then auth its credentials, refresh tokens and API keys. Each internal mutation is
 * idempotent, so a failed deletion can simply be retried.
 */
import type { InternalGraphQLClient } from '@platform/service';
import type { AccountPurger } from '../domain/user-service';

const PURGE_USER = 'mutation PurgeUser($userId: ID!) { _purgeUser(userId: $userId) }';
const PURGE_OWNER = 'mutation PurgeOwner($userId: ID!) { _purgeOwner(userId: $userId) }';
const PURGE_AUTHOR = 'mutation PurgeAuthor($userId: ID!) { _purgeAuthor(userId: $userId) }';
const PURGE_ACCOUNT = 'mutation PurgeAccount($userId: ID!) { _purgeAccount(userId: $userId) }';

export interface PurgeClients {
  auth: InternalGraphQLClient;
  items: InternalGraphQLClient;
  posts: InternalGraphQLClient;
  events: InternalGraphQLClient;
}

export class FederatedAccountPurger implements AccountPurger {
  constructor(private readonly clients: PurgeClients) {}

  async purge(userId: number, requestId: string): Promise<void> {
    const variables = { userId: String(userId) };
    // Owned data first, credentials last: until the end the owner can still log in and retry.
    await Promise.all([
      this.clients.items.request(PURGE_OWNER, variables, requestId),
      this.clients.posts.request(PURGE_AUTHOR, variables, requestId),
      this.clients.events.request(PURGE_ACCOUNT, variables, requestId),
    ]);
    await this.clients.auth.request(PURGE_USER, variables, requestId);
  }
}
