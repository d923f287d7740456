/**
 * One request's view of the generations (docs/decisions/0019-entity-generations.md): read once, at the start of the
 * request, for everything the request will depend on (its credential, and the fetches the same request needed last
 * time: a hint), and then served from memory to every step of the request: the credential checks and each fetch's
 * read-cache look-up. A request that turns out to need a key it did not read first reads it then (another round trip),
 * and remembers it for next time. Values read after the request arrived and before a fetch are what the exactness
 * argument of ADR 0017 needs; a mutation sent by the request invalidates the snapshot (its own later reads must see it).
 */
import { LRUCache } from 'lru-cache';
import type { RedisGenerations } from './redis-generations';

/** Keys remembered per hint: more than any operation of ours reads, few enough to read in one script call. */
const MAX_HINTED_KEYS = 64;

export class GenerationSnapshot {
  private readonly values = new Map<string, string | null>();
  private readonly loading = new Map<string, Promise<void>>();
  private readonly requested = new Set<string>();
  /** Bumped by invalidate(): a load started before must not fill the snapshot after. */
  private round = 0;
  private failed = false;
  /** The connection's epoch when the request started: nothing read under another may be kept. */
  readonly epoch: number;
  /** Whether the connection had settled when the request started (RedisGenerations.settled); if not, nothing is read. */
  private readonly settled: boolean;

  constructor(
    private readonly generations: RedisGenerations,
    private readonly hints: LRUCache<string, string[]> | undefined,
    private readonly hintKey: string | undefined,
  ) {
    this.epoch = generations.epoch;
    this.settled = generations.settled;
  }

  /** Starts the request's one read: `keys` and whatever the same request read last time. */
  prefetch(keys: readonly string[]): void {
    if (!this.usable()) return;
    const hinted = this.hintKey === undefined ? undefined : this.hints?.get(this.hintKey);
    const wanted = hinted ? [...keys, ...hinted] : [...keys];
    for (const key of keys) this.requested.add(key);
    const missing = wanted.filter((key) => !this.values.has(key) && !this.loading.has(key));
    if (missing.length > 0) void this.load(missing);
  }

  /**
   * The generations of `keys` (null: a flush generation no writer has set); undefined when Redis could not say, or lost
   * its connection since the request started: then nothing may be served from or kept in a cache.
   */
  async read(keys: readonly string[]): Promise<Map<string, string | null> | undefined> {
    for (const key of keys) this.requested.add(key);
    if (!this.usable()) return undefined;
    const waits = new Set<Promise<void>>();
    const missing: string[] = [];
    for (const key of keys) {
      if (this.values.has(key)) continue;
      const loading = this.loading.get(key);
      if (loading) waits.add(loading);
      else missing.push(key);
    }
    if (missing.length > 0) waits.add(this.load(missing));
    if (waits.size > 0) await Promise.all(waits);
    // Loaded meanwhile by an invalidated round: read again.
    if (keys.some((key) => !this.values.has(key)) && this.usable()) return this.read(keys);
    if (!this.usable()) return undefined;
    this.remember(missing.length > 0);
    return new Map(keys.map((key) => [key, this.values.get(key) ?? null]));
  }

  /** After a write this request sent: what it reads next must be read again (it may have bumped any of them). */
  invalidate(): void {
    this.round += 1;
    this.values.clear();
    this.loading.clear();
  }

  private usable(): boolean {
    return this.settled && !this.failed && this.generations.epoch === this.epoch;
  }

  private load(keys: string[]): Promise<void> {
    const round = this.round;
    const loaded = this.generations.read(keys).then(
      (values) => {
        if (round === this.round) for (const [key, value] of values) this.values.set(key, value);
      },
      () => {
        this.failed = true;
      },
    );
    const done = loaded.finally(() => {
      if (round === this.round) for (const key of keys) this.loading.delete(key);
    });
    for (const key of keys) this.loading.set(key, done);
    return done;
  }

  /** The keys this request needed, for the next request with the same hint key (only when it needed new ones). */
  private remember(readMore: boolean): void {
    if (!readMore || this.hintKey === undefined || !this.hints) return;
    this.hints.set(this.hintKey, [...this.requested].slice(0, MAX_HINTED_KEYS));
  }
}

/** A process's generations as requests read them: snapshots, and the hints of what each kind of request needs. */
export class GenerationReader {
  private readonly hints = new LRUCache<string, string[]>({ max: 10_000 });

  constructor(readonly generations: RedisGenerations) {}

  /** A snapshot for one request; `hintKey` names what the request is (the same key next time prefetches its keys). */
  snapshot(hintKey?: string): GenerationSnapshot {
    return new GenerationSnapshot(this.generations, this.hints, hintKey);
  }

  close(): Promise<void> {
    return this.generations.close();
  }
}
