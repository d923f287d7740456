/**
 * Per-subgraph generation counters in Redis, the one fact readers and writers of the read cache share: a subgraph bumps
 * its generation after every write, a reader reads it before every fetch and keeps answers under it
 * (docs/decisions/0017-read-cache.md).
 */
import { randomInt } from 'node:crypto';
import { Redis } from 'ioredis';
import { failFastRedisOptions } from '@platform/config';
import type { Logger } from '@platform/logging';

const KEY_PREFIX = 'read-cache:generation:';

export const generationKey = (subgraph: string): string => `${KEY_PREFIX}${subgraph}`;

/**
 * INCR that never restarts from a small number: a missing key (Redis restarted empty, flushed, or the key evicted)
 * starts again from a random 48-bit value, so a generation seen before the loss is not met again by chance
 * (an entry of generation 3 must not serve again after the counter went 1, 2, 3 in a fresh Redis).
 */
const BUMP_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('SET', KEYS[1], ARGV[1]) end
return redis.call('INCR', KEYS[1])
`;

interface GenerationCommands {
  bumpGeneration(key: string, start: string): Promise<number>;
}

export interface GenerationsOptions {
  redisUrl: string;
  /** A command not answered within this fails (the reader then reads through, the writer retries). */
  commandTimeoutMs: number;
  logger: Logger;
  /** Names the connection in the logs. */
  purpose: string;
}

/**
 * One ioredis connection: no offline queue (a command fails at once while disconnected: readers must not wait, and an
 * unknown generation means "do not cache"), commands of one event-loop turn pipelined into one write, reconnecting
 * every 0.1 .. 1 s.
 */
export class RedisGenerations {
  private readonly redis: Redis & GenerationCommands;
  private readonly lostListeners: Array<() => void> = [];
  private readonly backListeners: Array<() => void> = [];
  private healthy = true;

  constructor(private readonly options: GenerationsOptions) {
    this.redis = new Redis(options.redisUrl, failFastRedisOptions(options.commandTimeoutMs)) as Redis &
      GenerationCommands;
    this.redis.defineCommand('bumpGeneration', { numberOfKeys: 1, lua: BUMP_SCRIPT });
    this.redis.on('ready', () => {
      if (!this.healthy) options.logger.info(`${options.purpose}: Redis is back`);
      this.healthy = true;
      for (const listener of this.backListeners) listener();
    });
    this.redis.on('error', (error: Error) => this.lost(error.message));
    this.redis.on('close', () => this.lost('connection closed'));
  }

  /** Called whenever the connection errs or closes (a reader drops what it cached: see SubgraphReadCache). */
  onLost(listener: () => void): void {
    this.lostListeners.push(listener);
  }

  /** Called whenever the connection is (again) ready. */
  onBack(listener: () => void): void {
    this.backListeners.push(listener);
  }

  /** The subgraph's generation; null while no writer has set one. Rejects when Redis does not answer. */
  current(subgraph: string): Promise<string | null> {
    return this.redis.get(generationKey(subgraph));
  }

  /** Bumps the subgraph's generation. Rejects when Redis does not answer. */
  async bump(subgraph: string): Promise<void> {
    // 2^48 - 1: INCR has room for 2^63 beyond it.
    await this.redis.bumpGeneration(generationKey(subgraph), String(randomInt(1, 2 ** 48 - 1)));
  }

  async close(): Promise<void> {
    this.lostListeners.length = 0;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }

  private lost(reason: string): void {
    if (this.healthy) this.options.logger.warn({ reason }, `${this.options.purpose}: Redis unreachable`);
    this.healthy = false;
    for (const listener of this.lostListeners) listener();
  }
}
