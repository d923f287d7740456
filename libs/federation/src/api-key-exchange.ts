/**
 * The API-key exchange of whatever executes supergraph operations (the gateway process, or the REST facade with the
 * embedded gateway): a request that carries `x-api-key` and no `Authorization` has its key verified once by the auth
 * subgraph (its internal `_verifyApiKey`, called directly, not through the supergraph), and a short-lived JWT is
 * forwarded in its place, so the subgraphs only ever verify JWTs. Verdicts are cached briefly by
 * the key's digest: a revoked key, or one whose owner was deactivated, keeps working for at most `cacheTtlMs`.
 */
import { GraphQLError } from 'graphql';
import { LRUCache } from 'lru-cache';
import { digestSecret, malformedCredentialError, signAccessToken, ROLES, type Role } from '@platform/auth';
import { AppError } from '@platform/errors';

const VERIFY_API_KEY =
  'query VerifyApiKey($key: String!) { _verifyApiKey(key: $key) { userId username role scopes } }';

interface VerifyApiKeyData {
  _verifyApiKey: { userId: string | null; username: string; role: string; scopes: string[] } | null;
}

/** A client of the auth subgraph's own endpoint (InternalGraphQLClient from @platform/service fits). */
export interface AuthSubgraphClient {
  request<T>(query: string, variables: Record<string, unknown>, requestId?: string): Promise<T>;
}

export interface ApiKeyExchangeOptions {
  auth: AuthSubgraphClient;
  jwtSecret: string;
  /** How long a verdict (valid or invalid) is reused: the revocation delay. */
  cacheTtlMs?: number;
  /** Bound on cached verdicts; the least recently used goes first. */
  cacheMaxEntries?: number;
  /** Lifetime of the forwarded JWT: it only has to outlive one gateway request that started while cached. */
  tokenTtlSeconds?: number;
}

interface Verdict {
  /** `Bearer <jwt>`, or null for an invalid key. */
  authorization: string | null;
}

const unauthenticated = (message: string) =>
  new GraphQLError(message, { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });

/** Thrown from the gateway's context creation: the whole operation fails with 401, as REST's `Invalid API Key`. */
export const invalidApiKeyError = () => unauthenticated('Invalid API Key');

export class ApiKeyExchange {
  /** Verdicts by key digest, each for `cacheTtlMs` (bounded; the least recently used goes first). */
  private readonly cache: LRUCache<string, Verdict>;
  private readonly inFlight = new Map<string, Promise<Verdict>>();
  private readonly tokenTtlSeconds: number;

  constructor(private readonly options: ApiKeyExchangeOptions) {
    this.tokenTtlSeconds = options.tokenTtlSeconds ?? 60;
    this.cache = new LRUCache({
      max: options.cacheMaxEntries ?? 10_000,
      ttl: options.cacheTtlMs ?? 10_000,
      // Every look-up reads the (monotonic) clock; the default keeps a reading for 1 ms on a timer.
      ttlResolution: 0,
    });
  }

  /**
   * What a request forwards to the subgraphs: its bearer token when it has one (a bearer wins), else the JWT this key
   * is exchanged for, else nothing. Throws the `Invalid API Key` (or `Invalid token`) GraphQLError for a bad key (or a
   * bearer token outside its alphabet).
   */
  async forwardedAuthorization(
    authorization: string | undefined,
    apiKey: string | undefined,
    requestId: string,
  ): Promise<string | undefined> {
    // The gateway's entry: a credential outside its alphabet fails the operation before it is used or forwarded.
    const malformed = malformedCredentialError(authorization, apiKey);
    if (malformed) throw unauthenticated(malformed.message);
    if (authorization) return authorization;
    return apiKey === undefined ? undefined : this.authorizationFor(apiKey, requestId);
  }

  /** The `Authorization` value to forward for this key; throws the `Invalid API Key` GraphQLError for a bad key. */
  private async authorizationFor(apiKey: string, requestId: string): Promise<string> {
    const digest = digestSecret(apiKey);
    const verdict = this.cache.get(digest) ?? (await this.verifyOnce(digest, apiKey, requestId));
    if (verdict.authorization === null) throw invalidApiKeyError();
    return verdict.authorization;
  }

  private verifyOnce(digest: string, apiKey: string, requestId: string): Promise<Verdict> {
    let pending = this.inFlight.get(digest);
    if (!pending) {
      pending = this.verify(apiKey, requestId).finally(() => this.inFlight.delete(digest));
      this.inFlight.set(digest, pending);
      // Only definite answers are cached; an unreachable auth subgraph rejects and is asked again next time.
      void pending.then((verdict) => this.cache.set(digest, verdict)).catch(() => undefined);
    }
    return pending;
  }

  private async verify(apiKey: string, requestId: string): Promise<Verdict> {
    let data: VerifyApiKeyData;
    try {
      data = await this.options.auth.request<VerifyApiKeyData>(VERIFY_API_KEY, { key: apiKey }, requestId);
    } catch (error) {
      throw asGraphQLError(error);
    }
    const principal = data._verifyApiKey;
    if (!principal || !(ROLES as readonly string[]).includes(principal.role)) return { authorization: null };
    const uid = principal.userId === null ? null : Number(principal.userId);
    const token = signAccessToken(
      {
        sub: principal.username,
        uid,
        role: principal.role as Role,
        scopes: principal.scopes,
        kind: 'api-key',
      },
      this.options.jwtSecret,
      this.tokenTtlSeconds,
    );
    return { authorization: `Bearer ${token}` };
  }
}

/** A failed verification (auth down, timeout) keeps its meaning, e.g. 503, instead of turning into a 500. */
function asGraphQLError(error: unknown): GraphQLError {
  const appError =
    error instanceof AppError ? error : new AppError('SERVICE_UNAVAILABLE', 'A dependency is unavailable');
  const code = appError.code === 'SERVICE_UNAVAILABLE' ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_SERVER_ERROR';
  const message =
    code === 'SERVICE_UNAVAILABLE' ? 'Service temporarily unavailable' : 'Internal server error';
  return new GraphQLError(message, {
    extensions: { code, http: { status: code === 'SERVICE_UNAVAILABLE' ? 503 : 500 } },
  });
}
