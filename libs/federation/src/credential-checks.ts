/**
 * The caller, established once per request and process (docs/architecture.md "The caller"): whatever executes
 * supergraph operations (the gateway process, the REST facade) verifies a request's credential in two steps, and every
 * later step reads their result instead of looking at the credential again.
 *
 * 1. `present`, before the rate limit: the credential's alphabet, a bearer token's signature and claims (verified here,
 *    the one verification of the process), an API key's digest; and the request's generations are read, once, for
 *    what the credential and the request need (GenerationSnapshot).
 * 2. `resolve`, where the request runs: the account behind a user's token (AccessTokenStatus) or the key's verdict
 *    (ApiKeyExchange), both kept under the generations of what they read, so a revocation is seen by the next request
 *    on every replica. Its result is the principal, what goes to the subgraphs, the read cache's rights key and the
 *    stable id of the account (what idempotency records are bound to).
 */
import {
  AccessTokenVerifier,
  bearerTokenFrom,
  digestSecret,
  malformedCredentialError,
  type AccessTokenClaims,
  type Principal,
  type Secrets,
} from '@platform/auth';
import type { ResolvedSecrets, SupergraphEnvironment } from '@platform/config';
import type { AppError } from '@platform/errors';
import { createHash } from 'node:crypto';
import type { GenerationReader, GenerationSnapshot } from '@platform/read-cache';
import { InternalGraphQLClient } from '@platform/service';
import { AccessTokenStatus } from './access-token-status';
import { ApiKeyExchange, unauthenticatedError } from './api-key-exchange';


/** A request's credential as presented, checked for form and (a bearer token) signature. */
export interface PresentedCaller {
  /** `Authorization` as sent (a bearer wins over an API key; another scheme is forwarded as it is). */
  readonly authorization: string | undefined;
  /** The API key as sent (header, query or cookie: the facade's route decides whether it counts). */
  readonly apiKey: string | undefined;
  readonly apiKeyDigest: string | undefined;
  /** A bearer token's verified claims; undefined: none, or one that did not verify (the subgraphs then decide). */
  readonly claims: AccessTokenClaims | undefined;
  /** The 401 a credential earns by its form alone (libs/auth credential-format), for the bearer and for the key. */
  readonly malformedBearer: AppError | undefined;
  readonly malformedApiKey: AppError | undefined;
  /** This request's generations, read once; undefined without Redis. */
  readonly snapshot: GenerationSnapshot | undefined;
}

/** Who the request acts for, as every later step reads it. */
export interface ResolvedCaller {
  /** null: no credential, or a bearer token that did not verify (the subgraphs answer it as they would). */
  principal: Principal | null;
  /** What goes to the subgraphs as `Authorization` (an API key's short-lived JWT in its place). */
  authorization: string | undefined;
  /**
   * The read cache's rights key: everything a subgraph builds its principal from (kind, user id, username, role,
   * scopes); `anonymous` without a credential; undefined for a credential that did not verify (never cached).
   */
  viewer: string | undefined;
  /** The stable id of the account behind the credential (`user:12`, `key:5`, `key:bootstrap`); undefined: none. */
  account: string | undefined;
}

export const ANONYMOUS: ResolvedCaller = { principal: null, authorization: undefined, viewer: 'anonymous', account: undefined };

const principalOf = (claims: AccessTokenClaims): Principal => ({
  kind: claims.kind,
  userId: claims.uid,
  username: claims.sub,
  role: claims.role,
  scopes: claims.scopes,
});

const viewerOf = (claims: AccessTokenClaims): string =>
  JSON.stringify([claims.kind, claims.uid, claims.sub, claims.role, claims.scopes]);

export interface CallersOptions {
  jwtSecret: Secrets;
  tokenStatus: AccessTokenStatus;
  apiKeys: ApiKeyExchange;
  /** The process's generations (REDIS_URL); absent: every check asks its subgraph. */
  reader: GenerationReader | undefined;
}

export class Callers {
  private readonly verifier: AccessTokenVerifier;

  constructor(private readonly options: CallersOptions) {
    this.verifier = new AccessTokenVerifier(options.jwtSecret);
  }

  /**
   * Step 1: the credential's form and signature. `hint` names the request (the same hint next time reads the same
   * generations in the request's one Redis round trip); undefined: the request reads them when it knows them.
   */
  present(authorization: string | undefined, apiKey: string | undefined, hint?: string): PresentedCaller {
    const malformedBearer = malformedCredentialError(authorization, undefined) ?? undefined;
    const malformedApiKey = apiKey === undefined ? undefined : (malformedCredentialError(undefined, apiKey) ?? undefined);
    let claims: AccessTokenClaims | undefined;
    if (!malformedBearer && authorization) {
      try {
        const token = bearerTokenFrom(authorization);
        claims = token === null ? undefined : this.verifier.tryVerify(token);
      } catch {
        // Another scheme than Bearer: forwarded as it is, the subgraphs refuse it where a token is required.
        claims = undefined;
      }
    }
    const apiKeyDigest = apiKey === undefined || malformedApiKey ? undefined : digestSecret(apiKey);
    const presented: PresentedCaller = {
      authorization: authorization || undefined,
      apiKey,
      apiKeyDigest,
      claims,
      malformedBearer,
      malformedApiKey,
      snapshot: undefined,
    };
    return hint === undefined ? presented : this.withGenerations(presented, hint);
  }

  /** Starts the request's one read of generations (the gateway does once it has read the body it hints with). */
  withGenerations(presented: PresentedCaller, hint: string): PresentedCaller {
    const reader = this.options.reader;
    if (!reader || presented.snapshot) return presented;
    const credential = presented.claims
      ? viewerOf(presented.claims)
      : presented.apiKeyDigest && !presented.authorization
        ? `key:${presented.apiKeyDigest}`
        : presented.authorization
          ? 'unverified'
          : 'anonymous';
    const snapshot = reader.snapshot(createHash('sha256').update(credential).update('\n').update(hint).digest('base64url'));
    const keys = presented.authorization
      ? this.options.tokenStatus.generationsFor(presented.claims)
      : presented.apiKeyDigest
        ? this.options.apiKeys.generationsFor(presented.apiKeyDigest)
        : [];
    snapshot.prefetch(keys);
    return { ...presented, snapshot };
  }

  /**
   * Step 2: the account behind a user's token, or the key's verdict (only when `acceptApiKey`: the facade's routes
   * say which take keys). Throws the GraphQLError of a refused credential (401) or of a check that could not be made
   * (503).
   */
  async resolve(presented: PresentedCaller, requestId: string, acceptApiKey: boolean): Promise<ResolvedCaller> {
    if (presented.malformedBearer) throw unauthenticatedError(presented.malformedBearer.message);
    if (presented.authorization) {
      const claims = presented.claims;
      if (!claims) return { principal: null, authorization: presented.authorization, viewer: undefined, account: undefined };
      await this.options.tokenStatus.check(claims, requestId, presented.snapshot);
      return {
        principal: principalOf(claims),
        authorization: presented.authorization,
        viewer: viewerOf(claims),
        account: claims.uid !== null ? `user:${claims.uid}` : `service:${claims.sub}`,
      };
    }
    if (!acceptApiKey || presented.apiKey === undefined) return ANONYMOUS;
    if (presented.malformedApiKey) throw unauthenticatedError(presented.malformedApiKey.message);
    const key = await this.options.apiKeys.exchange(presented.apiKey, requestId, presented.snapshot);
    return {
      principal: principalOf(key.claims),
      authorization: key.authorization,
      viewer: viewerOf(key.claims),
      account: `key:${key.keyId ?? 'bootstrap'}`,
    };
  }
}

export interface CredentialChecks {
  callers: Callers;
  /** Closes the internal clients and the generations' connection (after the executor stopped). */
  close(): Promise<void>;
}

/**
 * The credential checks of a process, built once from the supergraph settings: API keys exchanged at the auth
 * subgraph, bearer tokens checked against the account state at the users subgraph, each over its own internal client,
 * both kept under the generations of `reader`.
 */
export function createCredentialChecks(
  env: SupergraphEnvironment & ResolvedSecrets,
  caller: string,
  reader: GenerationReader | undefined,
): CredentialChecks {
  const client = (url: string, upstream: string) =>
    new InternalGraphQLClient(url, {
      caller,
      upstream,
      jwtSecret: env.jwtSecret,
      subgraphSecret: env.subgraphSecret,
      timeoutMs: env.SUBGRAPH_TIMEOUT_MS,
    });
  // Straight to the subgraphs: `_verifyApiKey` and `_accountStatus` are not in the supergraph's API schema.
  const auth = client(env.AUTH_SUBGRAPH_URL, 'auth-internal');
  const users = client(env.USERS_SUBGRAPH_URL, 'users-internal');
  const generations = reader?.generations;
  const callers = new Callers({
    jwtSecret: env.jwtSecret,
    reader,
    apiKeys: new ApiKeyExchange({
      auth,
      jwtSecret: env.jwtSecret,
      generations,
      cacheTtlMs: env.API_KEY_CACHE_TTL_MS,
      cacheMaxEntries: env.API_KEY_CACHE_MAX_ENTRIES,
    }),
    tokenStatus: new AccessTokenStatus({ users, generations, cacheTtlMs: env.TOKEN_STATUS_CACHE_TTL_MS }),
  });
  return {
    callers,
    close: async () => {
      await Promise.all([auth.close(), users.close()]);
    },
  };
}
