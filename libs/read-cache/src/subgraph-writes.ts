/**
 * The writing side of the generations, in each subgraph: after it wrote, the generations of what it wrote are bumped
 * (each document's, its collection's; everything's when the write could not say), so no reader serves an answer or a
 * credential verdict from before the write (docs/decisions/0017-read-cache.md, docs/decisions/0019-entity-generations.md).
 * A bump that Redis does not take leaves a flush of the whole subgraph pending, retried until it lands; the write itself
 * is still answered (see ADR 0017 for why, and the bound).
 */
import type { Logger } from '@platform/logging';
import { metricsRecording, readCacheInvalidations } from '@platform/metrics';
import { anyGeneration, collectionGeneration, entityGeneration } from './generation-keys';
import { RedisGenerations } from './redis-generations';

/** What one or more writes touched: documents by collection and id, or (flush) anything of the subgraph. */
export interface WrittenData {
  flush: boolean;
  /** Collection -> ids of the documents written (the collection's own generation is bumped as well). */
  documents: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Writes collected so far (an HTTP request's in a subgraph, a job's in the deliveries worker), for one `wrote`. */
export interface CollectedWrites {
  flush: boolean;
  documents: Map<string, Set<string>>;
}

export const hasWrites = (collected: WrittenData): boolean => collected.flush || collected.documents.size > 0;

/**
 * Adds one reported write (libs/mongo data-access-tracking: `ids` undefined for documents it cannot name, `flush` for a
 * write that cannot name its collection either) to what is collected.
 */
export function collectWrite(
  into: CollectedWrites,
  write: { flush: boolean; collection: string | undefined; ids: readonly string[] | undefined },
): void {
  if (write.flush) into.flush = true;
  if (write.collection === undefined) return;
  const ids = into.documents.get(write.collection) ?? new Set<string>();
  into.documents.set(write.collection, ids);
  for (const id of write.ids ?? []) ids.add(id);
}

export interface SubgraphWrites {
  /** Resolves once the generations are bumped, or once the bump failed and a flush was left to the retry loop. */
  wrote(written: WrittenData): Promise<void>;
  close(): Promise<void>;
}

const RETRY_MS = 500;
const FLUSH: WrittenData = { flush: true, documents: new Map() };

class RedisSubgraphWrites implements SubgraphWrites {
  /** Bumps issued so far. */
  private issued = 0;
  /** The number of the latest failed bump that no later flush has covered yet; 0: none pending. */
  private uncovered: number;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly subgraph: string,
    private readonly generations: RedisGenerations,
    private readonly logger: Logger,
  ) {
    // The start-up flush: issued as soon as the connection is ready.
    this.uncovered = ++this.issued;
    generations.onBack(() => void this.retry());
  }

  async wrote(written: WrittenData): Promise<void> {
    const number = ++this.issued;
    const keys: string[] = [anyGeneration(this.subgraph)];
    for (const [collection, ids] of written.documents) {
      keys.push(collectionGeneration(this.subgraph, collection));
      for (const id of ids) keys.push(entityGeneration(this.subgraph, collection, id));
    }
    try {
      await this.generations.bump({ subgraph: this.subgraph, flush: written.flush, keys });
      this.count('ok');
      // Only a flush covers an earlier failure, whatever that one named.
      if (written.flush && number > this.uncovered) this.uncovered = 0;
    } catch (error) {
      this.count('failed');
      if (this.uncovered === 0) {
        this.logger.warn(
          {
            subgraph: this.subgraph,
            err: { message: error instanceof Error ? error.message : String(error) },
          },
          'read cache: generations not bumped after a write; flushing the subgraph once Redis takes it',
        );
      }
      this.uncovered = Math.max(this.uncovered, number);
      this.scheduleRetry();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.generations.close();
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.retry();
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  private async retry(): Promise<void> {
    if (this.uncovered === 0 || this.closed) return;
    await this.wrote(FLUSH);
    if (this.uncovered === 0) this.logger.info({ subgraph: this.subgraph }, 'read cache: generations bumped');
  }

  private count(outcome: 'ok' | 'failed'): void {
    if (metricsRecording()) readCacheInvalidations.inc({ subgraph: this.subgraph, outcome });
  }
}

/**
 * The subgraph's generation bumper; without REDIS_URL nothing to bump (no reader can cache without Redis either).
 * Flushes once at start: whatever this instance wrote while starting, and whatever a previous instance wrote without its
 * bump landing (it crashed between the two), is then covered.
 */
export function createSubgraphWrites(options: {
  subgraph: string;
  redisUrl: string | undefined;
  logger: Logger;
}): SubgraphWrites | undefined {
  if (!options.redisUrl) return undefined;
  const generations = new RedisGenerations({
    redisUrl: options.redisUrl,
    // A write's answer waits for its bump: longer than a reader's look-up may take, short of a client's patience.
    commandTimeoutMs: 1_000,
    logger: options.logger,
    purpose: 'read cache invalidation',
    fallback: 'writes flush their subgraph once Redis takes it',
  });
  return new RedisSubgraphWrites(options.subgraph, generations, options.logger);
}
