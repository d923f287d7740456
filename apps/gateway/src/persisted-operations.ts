/**
 * Persisted operations at the gateway. APQ (Apollo's `extensions.persistedQuery` protocol): registrations live in Redis,
 * so every gateway replica knows what one of them registered, bounded by a TTL, a largest document and a number of
 * registrations per TTL window. Trusted documents (TRUSTED_DOCUMENTS=on): a manifest of operation ids -> documents
 * (Apollo's persisted-query manifest format, generated at build from the facade's documents and schema/operations/)
 * loaded at start; only its ids, or its documents sent in full, run, and nothing new can be registered.
 *
 * The Redis cache is a few lines over ioredis (already the project's Redis client) instead of keyv + @keyv/redis: that
 * pair would bring a second Redis client library with its own connection handling for three commands; this one
 * fails fast like the rate limiter (no offline queue, a command timeout), and a Redis outage is a cache miss, never an
 * error: the client then sends the full document, as the APQ protocol has it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { GraphQLFormattedError } from 'graphql';
import type { Redis } from 'ioredis';
import { connectRedis, redisReady } from '@platform/config';
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
  commandTimeoutMs: number;
  logger: Logger;
  keyPrefix?: string;
}

export class RedisApqCache implements PersistedQueryCache {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(private readonly options: RedisApqCacheOptions) {
    // Apollo Server prefixes APQ keys with `apq:` itself.
    this.prefix = options.keyPrefix ?? 'gateway:';
    this.redis = connectRedis(options.redisUrl, options.commandTimeoutMs, options.logger, {
      purpose: 'APQ cache',
      fallback: 'every hash is a miss',
    });
  }

  /** Resolves true once connected, false after `timeoutMs` (the cache then misses until Redis is reachable). */
  ready(timeoutMs: number): Promise<boolean> {
    return redisReady(this.redis, timeoutMs);
  }

  async get(key: string): Promise<string | undefined> {
    try {
      return (await this.redis.get(this.prefix + key)) ?? undefined;
    } catch {
      return undefined;
    }
  }

  async set(key: string, value: string): Promise<void> {
    if (Buffer.byteLength(value, 'utf8') > this.options.maxDocumentBytes) return;
    const { ttlSeconds, maxEntries } = this.options;
    try {
      const window = `${this.prefix}registrations:${Math.floor(Date.now() / 1000 / ttlSeconds)}`;
      const [[, count]] = (await this.redis
        .multi()
        .incr(window)
        .expire(window, ttlSeconds * 2)
        .exec()) as [[unknown, number]];
      if (count > maxEntries) return;
      await this.redis.set(this.prefix + key, value, 'EX', ttlSeconds);
    } catch {
      // Not registered: the client sends the full document again next time.
    }
  }

  async delete(key: string): Promise<boolean> {
    try {
      return (await this.redis.del(this.prefix + key)) > 0;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
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
