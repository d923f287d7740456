/**
 * The API-key exchange of whatever executes supergraph operations (the gateway process, the REST facade): a request
 * that carries an API key and no `Authorization` has its key verified by the auth subgraph (its internal
 * `_verifyApiKey`, called directly, not through the supergraph), and a short-lived JWT is forwarded in its place, so the
 * subgraphs only ever verify JWTs. A verdict is kept by the key's digest under the generations of the key's document
 * and of its owner's account (docs/decisions/0019-entity-generations.md): revoking the key, or deactivating, deleting,
 * demoting its owner, bumps one of them, so the next request on any replica asks again. Without Redis nothing is kept.
 */
import { GraphQLError } from 'graphql';
import { digestSecret, signAccessToken, ROLES, type AccessTokenClaims, type Role, type Secrets } from '@platform/auth';
import { credentialChecks, metricsRecording } from '@platform/metrics';
import * as readCache from '@platform/read-cache';
import { ACCOUNTS, accountGenerations } from '@platform/read-cache';
import { askedAsOperation } from './kept-verdicts';

const VERIFY_API_KEY =
  'query VerifyApiKey($key: String!) { _verifyApiKey(key: $key) { keyId userId username role scopes } }';

/** Where keys live: the auth subgraph's `api_keys` collection (apps/auth api-key-repository.ts API_KEYS_COLLECTION). */
export const API_KEYS = { subgraph: 'auth', collection: 'api_keys' } as const;

interface VerifyApiKeyData {
  _verifyApiKey: {
    keyId: string | null;
    userId: string | null;
    username: string;
    role: string;
    scopes: string[];
  } | null;
}

/** A client of the auth subgraph's own endpoint (InternalGraphQLClient from @platform/service fits). */
export interface AuthSubgraphClient {
  request<T>(query: string, variables: Record<string, unknown>, requestId?: string): Promise<T>;
}

export interface ApiKeyExchangeOptions {
  auth: AuthSubgraphClient;
  jwtSecret: Secrets;
  /** The process's generations; absent (no REDIS_URL): nothing is kept, every request asks. */
  generations?: readCache.RedisGenerations | undefined;
  /** The oldest a verdict may serve (bounds only a write whose bump could not reach Redis); 0: nothing is kept. */
  cacheTtlMs?: number;
  /** Bound on kept verdicts; the least recently used goes first. */
  cacheMaxEntries?: number;
}

/** A key that verified: what to forward, who it acts for, and which key it is. */
export interface ExchangedKey {
  /** `Bearer <jwt>`: the short-lived token the subgraphs verify. */
  authorization: string;
  claims: AccessTokenClaims;
  /** null: the bootstrap key (BOOTSTRAP_API_KEY). */
  keyId: number | null;
}

interface Verdict {
  key: ExchangedKey | null;
  /** Seconds since the epoch after which `key.authorization` is minted again. */
  renewAt: number;
}

/** A refused credential: the whole operation fails with 401 (REST: the same message and status). */
export const unauthenticatedError = (message: string) =>
  new GraphQLError(message, { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });

/** Thrown from the gateway's context creation: the whole operation fails with 401, as REST's `Invalid API Key`. */
export const invalidApiKeyError = () => unauthenticatedError('Invalid API Key');

/**
 * What a verdict depends on before the key is known: every key and every account (any write to either collection
 * bumps these). Once known, only the key's document and its owner's account (verdictGenerations).
 */
const UNKNOWN_KEY_GENERATIONS = [
  readCache.flushGeneration(API_KEYS.subgraph),
  readCache.collectionGeneration(API_KEYS.subgraph, API_KEYS.collection),
  readCache.flushGeneration(ACCOUNTS.subgraph),
  readCache.collectionGeneration(ACCOUNTS.subgraph, ACCOUNTS.collection),
];

function verdictGenerations(key: ExchangedKey | null): string[] {
  if (!key) return UNKNOWN_KEY_GENERATIONS;
  // The bootstrap key is configuration: only a restart of auth (its flush) changes it.
  if (key.keyId === null || key.claims.uid === null) return [readCache.flushGeneration(API_KEYS.subgraph)];
  return [
    readCache.flushGeneration(API_KEYS.subgraph),
    readCache.entityGeneration(API_KEYS.subgraph, API_KEYS.collection, String(key.keyId)),
    ...accountGenerations(key.claims.uid),
  ];
}

export class ApiKeyExchange {
  private readonly verdicts: readCache.KeptAnswers<Verdict>;
  /** Lifetime of the forwarded JWT: longer than one request, minted again at half of it (mint). */
  private readonly tokenTtlSeconds = 60;

  constructor(private readonly options: ApiKeyExchangeOptions) {
    this.verdicts = new readCache.KeptAnswers({
      generations: options.generations,
      ttlMs: options.cacheTtlMs ?? 10_000,
      maxEntries: options.cacheMaxEntries ?? 10_000,
    });
  }

  /** The generations checking this key reads now (prefetched with the rest of the request's). */
  generationsFor(digest: string): string[] {
    return this.verdicts.generationsOf(digest, UNKNOWN_KEY_GENERATIONS);
  }

  /** The key's verdict: what to forward and who it is. Throws `Invalid API Key` (401), or 503 when auth cannot say. */
  async exchange(apiKey: string, requestId: string, snapshot: readCache.GenerationSnapshot | undefined): Promise<ExchangedKey> {
    // Kept the first time under the collections' generations (the key and its owner were not known before the call),
    // then under the key's and the owner's own.
    const { value: verdict, hit } = await this.verdicts.get(
      digestSecret(apiKey),
      snapshot,
      { required: [], coarse: UNKNOWN_KEY_GENERATIONS },
      () => askedAsOperation(() => this.verify(apiKey, requestId)),
      (kept) => verdictGenerations(kept.key),
    );
    if (metricsRecording())
      credentialChecks.inc({ check: 'api_key', result: verdict.key ? (hit ? 'hit' : 'miss') : 'refused' });
    if (!verdict.key) throw invalidApiKeyError();
    if (verdict.renewAt <= Date.now() / 1000) return this.mint(verdict.key.claims, verdict.key.keyId).key as ExchangedKey;
    return verdict.key;
  }

  private async verify(apiKey: string, requestId: string): Promise<Verdict> {
    const data = await this.options.auth.request<VerifyApiKeyData>(VERIFY_API_KEY, { key: apiKey }, requestId);
    const principal = data._verifyApiKey;
    if (!principal || !(ROLES as readonly string[]).includes(principal.role)) return { key: null, renewAt: Infinity };
    const claims: AccessTokenClaims = {
      sub: principal.username,
      uid: principal.userId === null ? null : Number(principal.userId),
      role: principal.role as Role,
      scopes: principal.scopes,
      kind: 'api-key',
    };
    return this.mint(claims, principal.keyId === null ? null : Number(principal.keyId));
  }

  /** Signs the JWT a verdict forwards; it is minted again once half its life is gone. */
  private mint(claims: AccessTokenClaims, keyId: number | null): Verdict {
    const { exp: _exp, iat: _iat, ...signed } = claims;
    const token = signAccessToken(signed, this.options.jwtSecret, this.tokenTtlSeconds);
    return {
      key: { authorization: `Bearer ${token}`, claims: signed, keyId },
      renewAt: Date.now() / 1000 + this.tokenTtlSeconds / 2,
    };
  }
}
