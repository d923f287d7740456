/**
 * The generations in Redis, the one fact readers and writers share (docs/decisions/0017-read-cache.md,
 * docs/decisions/0019-entity-generations.md): a writer bumps the generations of what it wrote after the write and before
 * its answer; a reader reads the generations of what it depends on before it fetches, and keeps what it fetched under
 * them. One connection per process (libs/config `connectRedis`: no offline queue, so while Redis is away a command fails
 * at once; readers must not wait, and an unknown generation means "do not cache").
 *
 * Generations never come back: a missing one starts again from a random 48-bit value (Redis restarted empty, flushed,
 * the key evicted or expired), so an entry stored under a value seen before the loss does not meet it again by chance.
 * Entity generations expire after an hour without a bump (they are as many as the documents touched); readers create
 * the entity and collection generations they find missing, so a document never written since is still cached under a
 * value of its own, and a write to another document of its collection leaves it alone.
 */
import { randomInt } from 'node:crypto';
import type { Redis } from 'ioredis';
import { closeRedis, connectRedis } from '@platform/config';
import type { Logger } from '@platform/logging';
import { createdByReaders, flushGeneration, generationKind, legacyGeneration, type GenerationKind } from './generation-keys';

/** How long an entity generation lives without a bump: a bound on memory, not on correctness (see above). */
const ENTITY_TTL_MS = 60 * 60 * 1000;

/**
 * KEYS: the generations, those a reader must not create first (flush, legacy), then the others, entity ones last.
 * ARGV: how many come first, the index of the first entity key, the start value for missing ones, the entity TTL.
 */
const READ_SCRIPT = `
local fixed = tonumber(ARGV[1])
local firstEntity = tonumber(ARGV[2])
local values = {}
for i, key in ipairs(KEYS) do
  local value = redis.call('GET', key)
  if not value and i > fixed then
    value = ARGV[3]
    if i >= firstEntity then redis.call('SET', key, value, 'PX', ARGV[4]) else redis.call('SET', key, value) end
  end
  values[i] = value or false
end
return values
`;

/**
 * KEYS: the subgraph's flush generation, then the collection and entity generations written (entity ones last).
 * ARGV: the start value for missing ones, '1' when the flush generation is bumped too (else only made to exist), the
 * index of the first entity key, the entity TTL.
 */
const BUMP_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('SET', KEYS[1], ARGV[1]) end
if ARGV[2] == '1' then redis.call('INCR', KEYS[1]) end
local firstEntity = tonumber(ARGV[3])
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then redis.call('SET', KEYS[i], ARGV[1]) end
  redis.call('INCR', KEYS[i])
  if i >= firstEntity then redis.call('PEXPIRE', KEYS[i], ARGV[4]) end
end
return 1
`;

/** The previous release's per-subgraph generation, bumped on every write while its readers may still run. */
const LEGACY_BUMP_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('SET', KEYS[1], ARGV[1]) end
return redis.call('INCR', KEYS[1])
`;

interface GenerationCommands {
  readGenerations(...args: Array<string | number>): Promise<Array<string | null>>;
  bumpGenerations(...args: Array<string | number>): Promise<number>;
  bumpLegacyGeneration(key: string, start: string): Promise<number>;
}

export interface GenerationsOptions {
  redisUrl: string;
  /** A command not answered within this fails (the reader then reads through, the writer retries). */
  commandTimeoutMs: number;
  logger: Logger;
  /** Names the connection in the logs. */
  purpose: string;
  /** What happens while Redis is unreachable, for the log line. */
  fallback: string;
}

/** A write's generations: the subgraph's flush one (bumped when `flush`), its collection and entity ones. */
export interface GenerationBump {
  subgraph: string;
  flush: boolean;
  /** Collection and entity generation keys (generation-keys.ts). */
  keys: readonly string[];
}

/**
 * After the connection was lost (every Sentinel failover is a lost connection: the old master's socket closes, ioredis
 * drops it on +switch-master) or a read went unanswered, what is read is not used for this long once the connection is
 * back. A writer that could not bump meanwhile retries as soon as its own connection is back and every 0.5 s
 * (subgraph-writes.ts); every connection retries at least once a second. Were this reader back first, an answer it
 * fetched before such a write committed would otherwise be kept under the generation the pending bump has not raised
 * yet, and served after the write returned (docs/decisions/0021-key-rings-and-redis-failover.md).
 */
export const REJOIN_MS = 2_000;

/** 2^48 - 1: INCR has room for 2^63 beyond it. */
const randomStart = (): string => String(randomInt(1, 2 ** 48 - 1));

const KIND_ORDER: Record<GenerationKind, number> = { flush: 0, legacy: 0, any: 1, collection: 1, entity: 2 };

export class RedisGenerations {
  private readonly redis: Redis & GenerationCommands;
  private readonly lostListeners: Array<() => void> = [];
  private readonly backListeners: Array<() => void> = [];
  /** Incremented whenever the connection errs or closes: what was read before may not be kept after. */
  private lost = 0;
  /** What is read before this is not used (REJOIN_MS after the connection came back or a read went unanswered). */
  private quietUntil = 0;
  /** Connected once: only then is a loss a rejoin (nothing was kept, and writers flush at their start, before). */
  private everReady = false;

  constructor(options: GenerationsOptions) {
    this.redis = connectRedis(options.redisUrl, options.commandTimeoutMs, options.logger, {
      purpose: options.purpose,
      fallback: options.fallback,
      onLost: () => this.markLost(),
      onReady: () => {
        if (this.everReady) this.quietUntil = Math.max(this.quietUntil, Date.now() + REJOIN_MS);
        this.everReady = true;
        this.backListeners.forEach((listener) => listener());
      },
    }) as Redis & GenerationCommands;
    this.redis.defineCommand('readGenerations', { lua: READ_SCRIPT });
    this.redis.defineCommand('bumpGenerations', { lua: BUMP_SCRIPT });
    this.redis.defineCommand('bumpLegacyGeneration', { numberOfKeys: 1, lua: LEGACY_BUMP_SCRIPT });
  }

  /** Changes whenever the connection was lost: a reader keeps nothing it read under another epoch. */
  get epoch(): number {
    return this.lost;
  }

  /**
   * Whether what is read now may be used: the connection is up, and was not lost (nor a read unanswered) within the
   * last REJOIN_MS. A request that starts while it is not reads no generation (nothing served, nothing kept).
   */
  get settled(): boolean {
    return this.redis.status === 'ready' && Date.now() >= this.quietUntil;
  }

  /** Called whenever the connection errs or closes (readers drop what they cached). */
  onLost(listener: () => void): void {
    this.lostListeners.push(listener);
  }

  /** Called whenever the connection is (again) ready. */
  onBack(listener: () => void): void {
    this.backListeners.push(listener);
  }

  /**
   * The generations of `keys`, in one round trip; a missing flush or legacy generation is null (no writer has set one),
   * missing others are created. Rejects when Redis does not answer.
   */
  async read(keys: readonly string[]): Promise<Map<string, string | null>> {
    const sorted = [...new Set(keys)].sort(
      (a, b) => KIND_ORDER[generationKind(a)] - KIND_ORDER[generationKind(b)],
    );
    const fixed = sorted.filter((key) => !createdByReaders(generationKind(key))).length;
    const firstEntity = sorted.findIndex((key) => generationKind(key) === 'entity');
    let values: Array<string | null>;
    try {
      values = await this.redis.readGenerations(
        sorted.length,
        ...sorted,
        fixed,
        firstEntity < 0 ? sorted.length + 1 : firstEntity + 1,
        randomStart(),
        ENTITY_TTL_MS,
      );
    } catch (error) {
      // Unanswered (a timeout does not close the connection): what readers kept may be older than a write since.
      this.markLost();
      throw error;
    }
    return new Map(sorted.map((key, index) => [key, values[index] ?? null]));
  }

  /** Bumps the generations of a write (and the previous release's key). Rejects when Redis does not answer. */
  async bump(change: GenerationBump): Promise<void> {
    const keys = [...new Set(change.keys)].sort(
      (a, b) => KIND_ORDER[generationKind(a)] - KIND_ORDER[generationKind(b)],
    );
    const firstEntity = keys.findIndex((key) => generationKind(key) === 'entity');
    const start = randomStart();
    // Two commands of one turn: auto-pipelined into one round trip. The legacy key lives in another Cluster slot.
    await Promise.all([
      this.redis.bumpGenerations(
        keys.length + 1,
        flushGeneration(change.subgraph),
        ...keys,
        start,
        change.flush ? '1' : '0',
        firstEntity < 0 ? keys.length + 2 : firstEntity + 2,
        ENTITY_TTL_MS,
      ),
      this.redis.bumpLegacyGeneration(legacyGeneration(change.subgraph), start),
    ]);
  }

  private markLost(): void {
    this.lost += 1;
    if (this.everReady) this.quietUntil = Math.max(this.quietUntil, Date.now() + REJOIN_MS);
    this.lostListeners.forEach((listener) => listener());
  }

  async close(): Promise<void> {
    this.lostListeners.length = 0;
    this.backListeners.length = 0;
    await closeRedis(this.redis);
  }
}
