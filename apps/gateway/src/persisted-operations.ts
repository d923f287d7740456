/**
 * Persisted operations at the gateway. APQ (Apollo's `extensions.persistedQuery` protocol): registrations live in Redis,
 * so every gateway replica knows what one of them registered, bounded by a TTL, a largest document, and budgets per TTL
 * window: each client's own (APQ_CLIENT_MAX_BYTES of documents, the client being a verified token's user, else its API
 * key, else its IP) and the replicas' shared one (APQ_MAX_ENTRIES registrations, APQ_MAX_BYTES of documents), so one
 * client cannot spend what the others need. A document sent with a hash that is not its SHA-256 is refused up front
 * (400 PERSISTED_QUERY_HASH_MISMATCH, as Apollo Router and Apollo's clients name it). Trusted documents
 * (TRUSTED_DOCUMENTS=on): a manifest of operation ids -> documents (Apollo's persisted-query manifest format, generated
 * at build from the facade's documents and schema/operations/) loaded at start; only its ids, or its documents sent in
 * full, run, and nothing new can be registered.
 *
 * The Redis cache is a few lines over ioredis (already the project's Redis client) instead of keyv + @keyv/redis: that
 * pair would bring a second Redis client library with its own connection handling, and Apollo's cache interface has no
 * caller to charge a registration to; this one fails fast like the rate limiter (no offline queue, a command timeout),
 * checks and charges every budget in one atomic script, and a Redis outage is a cache miss, never an error: the client
 * then sends the full document, as the APQ protocol has it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';
import type { Redis } from 'ioredis';
import { closeRedis, connectRedis, redisReady } from '@platform/config';
import type { FederationContext } from '@platform/federation';
import type { Logger } from '@platform/logging';

/** What Apollo Server's `persistedQueries.cache` takes (the KeyValueCache of @apollo/utils.keyvaluecache). */
export interface PersistedQueryCache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, options?: { ttl?: number | null }): Promise<void>;
  delete(key: string): Promise<boolean | void>;
}

export interface RedisApqCacheOptions {
  redisUrl: string;
  /** Seconds a registration lives (renewed by nothing: a client re-registers after it expired). */
  ttlSeconds: number;
  /** Largest document stored (UTF-8 bytes); a larger one still runs, it is only not registered. */
  maxDocumentBytes: number;
  /** Registrations accepted per TTL window, across all replicas: at most twice this many live at once. */
  maxEntries: number;
  /** Document bytes accepted per TTL window, across all replicas: at most twice this much is kept at once. */
  maxBytes: number;
  /** Document bytes one client may register per TTL window, across all replicas. */
  clientMaxBytes: number;
  commandTimeoutMs: number;
  logger: Logger;
  keyPrefix?: string;
}

/** What a registration came to: kept, already kept (by anyone: free), or refused, and by which bound. */
export type ApqRegistration =
  'stored' | 'exists' | 'too-large' | 'client-budget' | 'shared-budget' | 'unavailable';

/**
 * One registration, atomically across replicas. KEYS: the document, the window's registration count, its document
 * bytes, and this client's bytes in the window. ARGV: the document, its bytes, the TTL, the shared count and bytes
 * budgets, the client's budget. A client's counter is created only for a registration the shared budget admits, so at
 * most APQ_MAX_ENTRIES of them exist per window.
 */
const REGISTER_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
local size = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
if tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[4]) then return 'shared-budget' end
if tonumber(redis.call('GET', KEYS[3]) or '0') + size > tonumber(ARGV[5]) then return 'shared-budget' end
if tonumber(redis.call('GET', KEYS[4]) or '0') + size > tonumber(ARGV[6]) then return 'client-budget' end
redis.call('INCRBY', KEYS[4], size)
redis.call('EXPIRE', KEYS[4], ttl * 2)
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ttl * 2)
redis.call('INCRBY', KEYS[3], size)
redis.call('EXPIRE', KEYS[3], ttl * 2)
redis.call('SET', KEYS[1], ARGV[1], 'EX', ttl)
return 'stored'
`;

const APQ_KEY_PREFIX = 'apq:';

export class RedisApqCache implements PersistedQueryCache {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(private readonly options: RedisApqCacheOptions) {
    // Every key of one registration shares the `{apq}` hash tag, so the script's keys are in one slot on a Redis Cluster.
    this.prefix = `${options.keyPrefix ?? 'gateway:'}{apq}:`;
    this.redis = connectRedis(options.redisUrl, options.commandTimeoutMs, options.logger, {
      purpose: 'APQ cache',
      fallback: 'every hash is a miss',
    });
  }

  /** Resolves true once connected, false after `timeoutMs` (the cache then misses until Redis is reachable). */
  ready(timeoutMs: number): Promise<boolean> {
    return redisReady(this.redis, timeoutMs);
  }

  /** Apollo Server asks for `apq:<sha256>`. */
  async get(key: string): Promise<string | undefined> {
    try {
      return (await this.redis.get(this.documentKey(key))) ?? undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Apollo Server's own registration call knows no caller: registrations go through `register` (apqRegistrationPlugin,
   * the same moment in the request), which charges them to one.
   */
  async set(): Promise<void> {}

  /**
   * Keeps `document` under its hash (`apq:<sha256>` or the bare hash) when the client's and the shared budgets of this
   * window allow it. Never throws: a registration refused or lost is a later cache miss.
   */
  async register(hash: string, document: string, client: string): Promise<ApqRegistration> {
    const size = Buffer.byteLength(document, 'utf8');
    if (size > this.options.maxDocumentBytes) return 'too-large';
    const { ttlSeconds, maxEntries, maxBytes, clientMaxBytes } = this.options;
    const window = `${this.prefix}window:${Math.floor(Date.now() / 1000 / ttlSeconds)}`;
    // The client's identity digested: a fixed-size key, and no username or address in Redis.
    const clientDigest = createHash('sha256').update(client).digest('base64url').slice(0, 22);
    try {
      return (await this.redis.eval(
        REGISTER_SCRIPT,
        4,
        this.documentKey(hash),
        `${window}:count`,
        `${window}:bytes`,
        `${window}:client:${clientDigest}`,
        document,
        size,
        ttlSeconds,
        maxEntries,
        maxBytes,
        clientMaxBytes,
      )) as ApqRegistration;
    } catch {
      return 'unavailable';
    }
  }

  /**
   * Whose budget a registration spends: the account behind the caller the request established (a verified token's
   * user, a verified API key), else the client IP.
   */
  clientOf(context: Pick<FederationContext, 'caller' | 'clientIp'>): string {
    return context.caller.account ?? `ip:${context.clientIp ?? 'unknown'}`;
  }

  async delete(key: string): Promise<boolean> {
    try {
      return (await this.redis.del(this.documentKey(key))) > 0;
    } catch {
      return false;
    }
  }

  private documentKey(key: string): string {
    return this.prefix + (key.startsWith(APQ_KEY_PREFIX) ? key.slice(APQ_KEY_PREFIX.length) : key);
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }
}

/**
 * Registers what Apollo Server would have registered (a document sent with its hash, once the operation is accepted to
 * run: valid, within the limits), charged to the caller.
 */
export function apqRegistrationPlugin<TContext extends FederationContext>(
  cache: RedisApqCache,
): ApolloServerPlugin<TContext> {
  const registering = {
    async executionDidStart(requestContext: {
      metrics: { persistedQueryRegister?: boolean };
      queryHash?: string;
      source?: string;
      contextValue: TContext;
    }) {
      const { queryHash, source } = requestContext;
      if (!requestContext.metrics.persistedQueryRegister || !queryHash || source === undefined) return;
      void cache.register(queryHash, source, cache.clientOf(requestContext.contextValue));
    },
  };
  return { requestDidStart: async () => registering };
}

/**
 * A document sent with a `persistedQuery` hash that is not its SHA-256 (a client bug, or an attempt to register a
 * document under another's hash): 400 PERSISTED_QUERY_HASH_MISMATCH before anything parses it, POST body or GET query.
 */
export function persistedQueryHashMismatch(request: {
  body: unknown;
  search: string;
}): GraphQLFormattedError | undefined {
  let query: unknown;
  let extensions: unknown;
  if (typeof request.body === 'object' && request.body !== null && !Array.isArray(request.body)) {
    ({ query, extensions } = request.body as { query?: unknown; extensions?: unknown });
  } else {
    const params = new URLSearchParams(request.search);
    query = params.get('query') ?? undefined;
    try {
      extensions = JSON.parse(params.get('extensions') ?? 'null');
    } catch {
      return undefined;
    }
  }
  const hash = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | null)?.persistedQuery
    ?.sha256Hash;
  if (typeof query !== 'string' || typeof hash !== 'string' || operationId(query) === hash) return undefined;
  return {
    message: 'provided sha does not match query',
    extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH' },
  };
}

/** One operation of an Apollo persisted-query manifest. */
export interface ManifestOperation {
  id: string;
  name: string;
  type: 'query' | 'mutation' | 'subscription';
  body: string;
}

export interface PersistedQueryManifest {
  format: 'apollo-persisted-query-manifest';
  version: 1;
  operations: ManifestOperation[];
}

/** The id of a document, as APQ and the manifest have it: the SHA-256 of its exact text, in hex. */
export const operationId = (body: string): string => createHash('sha256').update(body).digest('hex');

/** Reads and checks a manifest (every id must be its body's hash, or the manifest and the documents disagree). */
export function loadManifest(path: string): Map<string, string> {
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as PersistedQueryManifest;
  if (manifest.format !== 'apollo-persisted-query-manifest' || manifest.version !== 1) {
    throw new Error(`${path}: not an apollo-persisted-query-manifest version 1`);
  }
  const documents = new Map<string, string>();
  for (const op of manifest.operations) {
    if (operationId(op.body) !== op.id)
      throw new Error(`${path}: operation ${op.name}: id is not the SHA-256 of its body`);
    documents.set(op.id, op.body);
  }
  return documents;
}

/** The manifest as APQ's cache: ids resolve to their documents; registrations are ignored (the list is fixed). */
export class TrustedDocumentsCache implements PersistedQueryCache {
  constructor(private readonly documents: ReadonlyMap<string, string>) {}

  async get(key: string): Promise<string | undefined> {
    // Apollo Server asks for `apq:<sha256>`.
    return this.documents.get(key.replace(/^apq:/, ''));
  }

  async set(): Promise<void> {}

  async delete(): Promise<boolean> {
    return false;
  }
}

/**
 * Trusted-documents mode: a request that carries a document not in the manifest is refused (400
 * PERSISTED_QUERY_NOT_IN_LIST) before anything parses it; a listed id resolves through TrustedDocumentsCache.
 */
export function unlistedDocumentRefusal(
  documents: ReadonlyMap<string, string>,
): (request: { body: unknown; search: string }) => GraphQLFormattedError | undefined {
  return ({ body, search }) => {
    const query =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as { query?: unknown }).query
        : new URLSearchParams(search).get('query');
    if (typeof query !== 'string' || documents.has(operationId(query))) return undefined;
    return {
      message: 'Only registered operations run here: send the id of a listed operation.',
      extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST' },
    };
  };
}
