/**
 * The writing side of the read cache, in each subgraph: after the subgraph wrote, its generation is bumped, so no
 * reader serves an answer from before the write (docs/decisions/0017-read-cache.md). A bump that Redis does not take is
 * kept pending and retried until it lands; the write itself is still answered (see the ADR for why, and the bound).
 */
import type { Logger } from '@platform/logging';
import { metricsRecording, readCacheInvalidations } from '@platform/metrics';
import { RedisGenerations } from './subgraph-read-cache';

export interface SubgraphWrites {
  /** Resolves once the generation is bumped, or once the bump failed and was left to the retry loop. */
  written(): Promise<void>;
  close(): Promise<void>;
}

const RETRY_MS = 500;

class RedisSubgraphWrites implements SubgraphWrites {
  /** Bumps issued so far; each one covers every write that finished before it was issued. */
  private issued = 0;
  /** The number of the latest failed bump no later bump has covered yet; 0: none pending. */
  private uncovered: number;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly subgraph: string,
    private readonly generations: RedisGenerations,
    private readonly logger: Logger,
  ) {
    // The start-up bump: issued as soon as the connection is ready.
    this.uncovered = ++this.issued;
    generations.onBack(() => void this.retry());
  }

  async written(): Promise<void> {
    const number = ++this.issued;
    try {
      await this.generations.bump(this.subgraph);
      this.count('ok');
      if (number > this.uncovered) this.uncovered = 0;
    } catch (error) {
      this.count('failed');
      if (this.uncovered === 0) {
        this.logger.warn(
          {
            subgraph: this.subgraph,
            err: { message: error instanceof Error ? error.message : String(error) },
          },
          'read cache: generation not bumped after a write; retrying until Redis takes it',
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
    await this.written();
    if (this.uncovered === 0) this.logger.info({ subgraph: this.subgraph }, 'read cache: generation bumped');
  }

  private count(outcome: 'ok' | 'failed'): void {
    if (metricsRecording()) readCacheInvalidations.inc({ subgraph: this.subgraph, outcome });
  }
}

const NO_WRITES: SubgraphWrites = { written: async () => undefined, close: async () => undefined };

/**
 * The subgraph's generation bumper; without REDIS_URL nothing to bump (no reader can cache without Redis either).
 * Bumps once at start: whatever this instance wrote while starting, and whatever a previous instance wrote without its
 * bump landing (it crashed between the two), is then covered.
 */
export function createSubgraphWrites(options: {
  subgraph: string;
  redisUrl: string | undefined;
  logger: Logger;
}): SubgraphWrites {
  if (!options.redisUrl) return NO_WRITES;
  const generations = new RedisGenerations({
    redisUrl: options.redisUrl,
    // A write's answer waits for its bump: longer than a reader's look-up may take, short of a client's patience.
    commandTimeoutMs: 1_000,
    logger: options.logger,
    purpose: 'read cache invalidation',
    fallback: 'writes retry their bump until Redis takes it',
  });
  return new RedisSubgraphWrites(options.subgraph, generations, options.logger);
}
