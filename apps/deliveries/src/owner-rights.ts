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
import { accountGenerations, GenerationCache, GenerationReader, type RedisGenerations } from '@platform/read-cache';
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
  const ttlMs = options.ttlMs ?? 2_000;
  const reader = options.generations && ttlMs > 0 ? new GenerationReader(options.generations) : undefined;
  const kept =
    options.generations && reader
      ? new GenerationCache<{ status: AccountStatus }>(options.generations, { max: 10_000, ttlMs })
      : undefined;
  const ask = async (ownerId: number): Promise<{ status: AccountStatus }> => {
    const { _accountStatus: status } = await client.request<{ _accountStatus: AccountStatus }>(ACCOUNT_STATUS, {
      id: String(ownerId),
    });
    return { status };
  };
  const statusOf = async (ownerId: number): Promise<{ status: AccountStatus; hit: boolean }> => {
    if (!kept || !reader) return { ...(await ask(ownerId)), hit: false };
    const keys = accountGenerations(ownerId);
    const found = await kept.lookup(String(ownerId), reader.snapshot(), keys);
    if (found.kind === 'hit') return { ...found.value, hit: true };
    const asked = await ask(ownerId);
    if (found.kind === 'miss') found.keep(asked, keys);
    return { ...asked, hit: false };
  };
  return {
    async ownerOf(ownerId) {
      const { status, hit } = await statusOf(ownerId);
      const active = status !== null && status.isActive;
      if (metricsRecording())
        credentialChecks.inc({ check: 'webhook_owner', result: active ? (hit ? 'hit' : 'miss') : 'refused' });
      if (!status || !status.isActive) return null;
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
