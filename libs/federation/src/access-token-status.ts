/**
 * Access tokens that stop working before they expire: whatever executes supergraph operations (the gateway process,
 * the facade's embedded gateway) asks the users subgraph's internal `_accountStatus` about the user behind a bearer
 * token, and refuses the token (401 `Invalid token`) when that user is gone, inactive, holds another role than the
 * token says, or reset the password after the token was issued. Answers are kept `cacheTtlMs` per user (default 2 s),
 * which bounds how long a revoked token keeps working; concurrent requests for one user share one call. The subgraphs
 * only answer the gateway (SUBGRAPH_SECRET), so this one check covers every way in.
 */
import { GraphQLError } from 'graphql';
import { LRUCache } from 'lru-cache';
import { AccessTokenVerifier, bearerTokenFrom, type AccessTokenClaims } from '@platform/auth';
import { AppError } from '@platform/errors';
import type { AuthSubgraphClient } from './api-key-exchange';

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

interface Status {
  account: AccountStatusData['_accountStatus'];
}

export interface AccessTokenStatusOptions {
  /** A client of the users subgraph's own endpoint (InternalGraphQLClient from @platform/service fits). */
  users: AuthSubgraphClient;
  jwtSecret: string;
  cacheTtlMs?: number;
  cacheMaxEntries?: number;
}

export const invalidTokenError = () =>
  new GraphQLError('Invalid token', { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });

export class AccessTokenStatus {
  private readonly verifier: AccessTokenVerifier;
  /** Statuses by user id, each for `cacheTtlMs` (bounded; the least recently used goes first). */
  private readonly cache: LRUCache<number, Status>;
  private readonly inFlight = new Map<number, Promise<Status>>();

  constructor(private readonly options: AccessTokenStatusOptions) {
    this.verifier = new AccessTokenVerifier(options.jwtSecret);
    this.cache = new LRUCache({
      max: options.cacheMaxEntries ?? 10_000,
      ttl: options.cacheTtlMs ?? 2_000,
      // Every look-up reads the (monotonic) clock; the default keeps a reading for 1 ms on a timer.
      ttlResolution: 0,
    });
  }

  /**
   * Throws `Invalid token` (401) for a user token whose account no longer allows it, SERVICE_UNAVAILABLE (503) when
   * the users subgraph cannot say. Anything else (no token, a malformed or forged one, API-key and service tokens)
   * passes unchanged: the subgraphs verify tokens themselves, and API keys are checked where they are exchanged.
   */
  async check(authorization: string | undefined, requestId: string): Promise<void> {
    let claims: AccessTokenClaims | undefined;
    try {
      const token = bearerTokenFrom(authorization);
      claims = token === null ? undefined : this.verifier.tryVerify(token);
    } catch {
      return;
    }
    if (!claims || claims.kind !== 'user' || claims.uid === null) return;
    const status = this.cache.get(claims.uid) ?? (await this.fetchOnce(claims.uid, requestId));
    if (!allows(status.account, claims)) throw invalidTokenError();
  }

  private fetchOnce(userId: number, requestId: string): Promise<Status> {
    let pending = this.inFlight.get(userId);
    if (!pending) {
      pending = this.fetch(userId, requestId).finally(() => this.inFlight.delete(userId));
      this.inFlight.set(userId, pending);
    }
    return pending;
  }

  private async fetch(userId: number, requestId: string): Promise<Status> {
    let data: AccountStatusData;
    try {
      data = await this.options.users.request<AccountStatusData>(
        ACCOUNT_STATUS,
        { id: String(userId) },
        requestId,
      );
    } catch (error) {
      // Unknown is not allowed: the request fails as the dependency's outage it is (503), and is asked again next time.
      const unavailable = !(error instanceof AppError) || error.code === 'SERVICE_UNAVAILABLE';
      throw new GraphQLError(unavailable ? 'Service temporarily unavailable' : 'Internal server error', {
        extensions: {
          code: unavailable ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_SERVER_ERROR',
          http: { status: unavailable ? 503 : 500 },
        },
      });
    }
    const status = { account: data._accountStatus };
    this.cache.set(userId, status);
    return status;
  }
}

function allows(account: AccountStatusData['_accountStatus'], claims: AccessTokenClaims): boolean {
  if (!account || !account.isActive || account.role !== claims.role) return false;
  // Issued at the account's current password version: no reset since (a count, so no clock and no second decides).
  if (claims.pwv !== undefined) return claims.pwv >= account.passwordVersion;
  // A token issued before `pwv` existed (a rolling update): by the instant of the last reset, as before.
  if (account.tokensValidAfter === null) return true;
  return claims.iat !== undefined && Math.round(claims.iat * 1000) >= account.tokensValidAfter;
}
