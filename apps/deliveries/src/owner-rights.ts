/**
 * A webhook owner's rights at delivery time, as the users subgraph's internal `_accountStatus` says them (the one the
 * auth subgraph reads at every login): missing or deactivated accounts read nothing; otherwise the role's scopes.
 *
 * Asked at the first try for an owner and kept under the generations of the owner's account document (ADR 0019, the
 * same keys and the same cache as the account behind a bearer token: `accountGenerations`). Every write to the account
 * (a deactivation, a deletion, a role change, an activation) bumps them before it answers, so the next try on any
 * worker asks again: a deactivated owner's endpoints stop at the next attempt, and an owner activated again receives
 * only what happened since (`activeSince`), not what a backlog still held from while it was deactivated. Where Redis
 * cannot say (no generations yet, a lost connection) every try asks, as before; a kept answer serves at most
 * `ttlMs` (what bounds only a write whose bump could not reach Redis).
 */
import { scopesForRole, type Role, type Secrets } from '@platform/auth';
import type { EventReader } from '@platform/events';
import { credentialChecks, metricsRecording } from '@platform/metrics';
import { accountGenerations, GenerationReader, KeptAnswers, type RedisGenerations } from '@platform/read-cache';
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

type AccountStatus = { role: Role; isActive: boolean; activeSince: number | null } | null;

export function usersOwnerRights(options: {
  usersUrl: string;
  jwtSecret: Secrets;
  subgraphSecret: Secrets;
  /** The users' generations (the platform's Redis; closed with the rest); absent: every try asks. */
  generations?: RedisGenerations | undefined;
  /** The oldest a kept answer may serve; 0: nothing is kept. */
  ttlMs?: number;
}): OwnerRights {
  const client = new InternalGraphQLClient(options.usersUrl, {
    caller: 'deliveries',
    jwtSecret: options.jwtSecret,
    subgraphSecret: options.subgraphSecret,
    upstream: 'users',
  });
  // The account behind a bearer token is kept the same way (libs/federation access-token-status.ts).
  const kept = new KeptAnswers<{ status: AccountStatus }>({
    generations: options.generations,
    ttlMs: options.ttlMs ?? 2_000,
    maxEntries: 10_000,
  });
  const reader = options.generations && kept.keeping ? new GenerationReader(options.generations) : undefined;
  return {
    async ownerOf(ownerId) {
      const keys = accountGenerations(ownerId);
      const {
        value: { status },
        hit,
      } = await kept.get(
        String(ownerId),
        reader?.snapshot(),
        { required: keys },
        async () => {
          const data = await client.request<{ _accountStatus: AccountStatus }>(ACCOUNT_STATUS, {
            id: String(ownerId),
          });
          return { status: data._accountStatus };
        },
        () => keys,
      );
      if (metricsRecording())
        credentialChecks.inc({ check: 'webhook_owner', result: !status?.isActive ? 'refused' : hit ? 'hit' : 'miss' });
      if (!status?.isActive) return null;
      return {
        reader: { kind: 'user', userId: ownerId, role: status.role, scopes: scopesForRole(status.role) },
        activeSince: status.activeSince === null ? null : new Date(status.activeSince),
      };
    },
    close: async () => {
      try {
        await client.close();
      } finally {
        await options.generations?.close(); // the caller hands its connection over
      }
    },
  };
}
