/**
 * Access tokens that stop working before they expire: whatever executes supergraph operations (the gateway process,
 * the facade) asks the users subgraph's internal `_accountStatus` about the user behind a bearer token, and refuses the
 * token (401 `Invalid token`) when that user is gone, inactive, holds another role than the token says, or reset the
 * password after the token was issued. An answer is kept per user under the generations of that user's document
 * (docs/decisions/0019-entity-generations.md): every write to the account (deactivation, deletion, a reset, a role
 * change) bumps it, so the next request on any replica asks again. Without Redis (or while it does not answer) nothing
 * is kept: every request asks. Concurrent checks that read the same generations share one call.
 */
import { GraphQLError } from 'graphql';
import type { AccessTokenClaims } from '@platform/auth';
import { credentialChecks, metricsRecording } from '@platform/metrics';
import { accountGenerations, KeptAnswers, type GenerationSnapshot, type RedisGenerations } from '@platform/read-cache';
import type { AuthSubgraphClient } from './api-key-exchange';
import { askedAsOperation } from './kept-verdicts';

const ACCOUNT_STATUS =
  'query AccountStatus($id: ID!) { _accountStatus(id: $id) { role isActive passwordVersion tokensValidAfter } }';

interface AccountStatusData {
  _accountStatus: {
    role: string;
    isActive: boolean;
    passwordVersion: number;
    tokensValidAfter: number | null;
  } | null;
}

type Account = AccountStatusData['_accountStatus'];

export interface AccessTokenStatusOptions {
  /** A client of the users subgraph's own endpoint (InternalGraphQLClient from @platform/service fits). */
  users: AuthSubgraphClient;
  /** The process's generations; absent (no REDIS_URL): nothing is kept, every check asks. */
  generations?: RedisGenerations | undefined;
  /** The oldest an answer may serve (bounds only a write whose bump could not reach Redis); 0: nothing is kept. */
  cacheTtlMs?: number;
  cacheMaxEntries?: number;
}

export const invalidTokenError = () =>
  new GraphQLError('Invalid token', { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });

export class AccessTokenStatus {
  private readonly accounts: KeptAnswers<{ account: Account }>;

  constructor(private readonly options: AccessTokenStatusOptions) {
    this.accounts = new KeptAnswers({
      generations: options.generations,
      ttlMs: options.cacheTtlMs ?? 2_000,
      maxEntries: options.cacheMaxEntries ?? 10_000,
    });
  }

  /** The generations a check of these claims reads (prefetched with the rest of the request's). */
  generationsFor(claims: AccessTokenClaims | undefined): string[] {
    return claims?.kind === 'user' && claims.uid !== null ? accountGenerations(claims.uid) : [];
  }

  /**
   * Throws `Invalid token` (401) for a user token whose account no longer allows it, SERVICE_UNAVAILABLE (503) when
   * the users subgraph cannot say. API-key and service tokens pass: keys are checked where they are exchanged.
   */
  async check(claims: AccessTokenClaims, requestId: string, snapshot: GenerationSnapshot | undefined): Promise<void> {
    if (claims.kind !== 'user' || claims.uid === null) return;
    const userId = claims.uid;
    const keys = accountGenerations(userId);
    const { value: verdict, hit } = await this.accounts.get(
      String(userId),
      snapshot,
      { required: keys },
      () =>
        askedAsOperation(async () => {
          const data = await this.options.users.request<AccountStatusData>(ACCOUNT_STATUS, { id: String(userId) }, requestId);
          return { account: data._accountStatus };
        }),
      () => keys,
    );
    const allowed = allows(verdict.account, claims);
    if (metricsRecording())
      credentialChecks.inc({ check: 'account_status', result: allowed ? (hit ? 'hit' : 'miss') : 'refused' });
    if (!allowed) throw invalidTokenError();
  }
}

function allows(account: Account, claims: AccessTokenClaims): boolean {
  if (!account || !account.isActive || account.role !== claims.role) return false;
  // Issued at the account's current password version: no reset since (a count, so no clock and no second decides).
  if (claims.pwv !== undefined) return claims.pwv >= account.passwordVersion;
  // A token issued before `pwv` existed (a rolling update): by the instant of the last reset, as before.
  if (account.tokensValidAfter === null) return true;
  return claims.iat !== undefined && Math.round(claims.iat * 1000) >= account.tokensValidAfter;
}
