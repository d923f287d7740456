/**
 * The reading side of the read cache, where the gateway's executor fetches from a subgraph (the gateway process and
 * the facade's embedded executor): query answers kept in-process (bounded LRU) per subgraph, request body and the
 * caller's rights, each valid only while the generations of what it read (the subgraph names them in its answer: the
 * documents by id, the collections listed) still have the values read before it was fetched
 * (docs/decisions/0017-read-cache.md, docs/decisions/0019-entity-generations.md).
 */
import { metricsRecording, readCacheLookups, readCacheResets } from '@platform/metrics';
import { GenerationCache } from './generation-cache';
import { anyGeneration, flushGeneration, legacyGeneration, type ReadDependencies } from './generation-keys';
import type { GenerationReader, GenerationSnapshot } from './generation-snapshot';

/** One subgraph query as the executor is about to send it (a mutation is never looked up). */
export interface SubgraphRead {
  subgraph: string;
  /** The JSON body posted to the subgraph (query, variables, operation name). */
  body: string;
  /**
   * Who asks, as far as any subgraph can tell (the established caller's principal: kind, user id, username, role,
   * scopes); undefined: a credential that did not verify (not cached: the subgraph decides what it gets).
   */
  viewer: string | undefined;
  /** The facade's own operations may ask for larger pages than GraphQL clients: their answers are kept apart. */
  facade: boolean;
  /** The request's generations. */
  snapshot: GenerationSnapshot;
}

/** A cache hit (`body`), or a miss whose answer may be kept with `keep`. */
export interface CachedRead {
  body: string | undefined;
  /** The generations read before this look-up: fetches may be shared only between reads of the same ones. */
  generation: string;
  /**
   * Keeps the subgraph's raw answer (call only for a 2xx JSON answer without `errors`), with what the subgraph said it
   * read (takeReadDependencies); `none` keeps nothing.
   */
  keep(body: string, dependencies: ReadDependencies | undefined): void;
}

export interface SubgraphReadCache {
  /** undefined: not cacheable (an invalid credential, the generations unknown): fetch as usual. */
  lookup(read: SubgraphRead): Promise<CachedRead | undefined>;
  close(): Promise<void>;
}

export interface ReadCacheOptions {
  maxEntries: number;
  maxBytes: number;
  ttlMs: number;
}

type LookupResult = 'hit' | 'miss' | 'stale_miss' | 'bypass';

class RedisReadCache implements SubgraphReadCache {
  private readonly entries: GenerationCache<string>;

  constructor(reader: GenerationReader, options: ReadCacheOptions) {
    this.entries = new GenerationCache<string>(reader.generations, {
      max: options.maxEntries,
      maxSize: options.maxBytes,
      // UTF-16 code units, close enough to bytes for a bound.
      sizeOf: (body, key) => key.length + (body?.length ?? 0) + 64,
      ttlMs: options.ttlMs,
      onReset: () => {
        if (metricsRecording()) readCacheResets.inc();
      },
    });
  }

  async lookup(read: SubgraphRead): Promise<CachedRead | undefined> {
    if (read.viewer === undefined) return this.count(read.subgraph, 'bypass');
    const key = `${read.subgraph}\n${read.facade ? 'facade' : 'client'}\n${read.viewer}\n${read.body}`;
    // A read not seen before also reads the subgraph's `any` generation: its first answer is kept under that.
    const found = await this.entries.lookup(key, read.snapshot, [flushGeneration(read.subgraph)], () => [
      anyGeneration(read.subgraph),
    ]);
    if (found.kind === 'unknown') return this.count(read.subgraph, 'bypass');
    if (found.kind === 'hit') {
      this.count(read.subgraph, 'hit');
      return { body: found.value, generation: '', keep: () => undefined };
    }
    this.count(read.subgraph, found.stale ? 'stale_miss' : 'miss');
    return {
      body: undefined,
      generation: found.signature,
      keep: (body, dependencies) => {
        if (dependencies === 'none') return;
        // A subgraph of the previous release names nothing: its every write bumps the legacy generation.
        found.keep(body, dependencies ?? [legacyGeneration(read.subgraph)]);
      },
    };
  }

  async close(): Promise<void> {
    this.entries.clear();
  }

  private count(subgraph: string, result: LookupResult): undefined {
    if (metricsRecording()) readCacheLookups.inc({ subgraph, result });
    return undefined;
  }
}

/** READ_CACHE=on with Redis generations: the cache; otherwise undefined (every read goes to its subgraph). */
export function createSubgraphReadCache(
  options: ReadCacheOptions & { enabled: boolean; reader: GenerationReader | undefined },
): SubgraphReadCache | undefined {
  if (!options.enabled || !options.reader) return undefined;
  return new RedisReadCache(options.reader, options);
}
