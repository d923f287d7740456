/**
 * What every cache of ours keyed by generations does (the read cache of subgraph answers, the account status behind a
 * token, the API-key verdicts): an entry serves only while every generation it depends on still has the value read
 * before it was fetched (docs/decisions/0017-read-cache.md's proof, per dependency: docs/decisions/0019).
 *
 * What an entry depends on is often known only from its answer (which documents a subgraph read, which key and owner a
 * verdict names), while the generations must be read before the fetch. So a look-up of an unknown entry also reads
 * coarser generations (`coarse`: e.g. the subgraph's `any`), and a value whose documents were not read beforehand is
 * kept under those (which every write to one of its documents bumps too: coveringGenerations), and the entry
 * remembers what it learned it depends on: the next look-up reads those, and the next fetch keeps the value under them.
 * A value depending on something neither read nor covered keeps only the lesson.
 */
import { LRUCache } from 'lru-cache';
import { coveringGenerations } from './generation-keys';
import type { GenerationSnapshot } from './generation-snapshot';
import type { RedisGenerations } from './redis-generations';

interface Entry<V> {
  /** The generations the value was stored under, and their values. */
  deps: readonly string[];
  generations: readonly (string | null)[];
  /** undefined: only a lesson (what to read next time), no value yet. */
  value: V | undefined;
  /** What the value really depends on (read at the next look-up besides `deps`). */
  learned: readonly string[];
}

export type GenerationLookup<V> =
  /** Redis could not say (or no writer has set a generation this depends on): neither serve nor keep. */
  | { kind: 'unknown' }
  | { kind: 'hit'; value: V }
  | {
      kind: 'miss';
      /** An entry was there under older generations. */
      stale: boolean;
      /** The generations read: fetches may be shared only between look-ups that read the same (ADR 0017). */
      signature: string;
      /**
       * Keeps `value`, which depends on `deps`: under their generations as read before the fetch (an entity's by its
       * collection's when only that one was read), else only as a lesson for the next look-up.
       */
      keep(value: V, deps: readonly string[]): void;
    };

export interface GenerationCacheOptions<V> {
  max: number;
  ttlMs: number;
  /** Bound on the sum of `sizeOf` over entries. */
  maxSize?: number | undefined;
  sizeOf?: ((value: V | undefined, key: string) => number) | undefined;
  /** Called when a lost connection dropped entries. */
  onReset?: (() => void) | undefined;
}

const union = (...lists: Array<readonly string[] | undefined>): string[] => {
  const all = new Set<string>();
  for (const list of lists) if (list) for (const key of list) all.add(key);
  return [...all];
};

export class GenerationCache<V> {
  private readonly entries: LRUCache<string, Entry<V>>;

  constructor(
    private readonly generations: RedisGenerations,
    options: GenerationCacheOptions<V>,
  ) {
    const sizeOf = options.sizeOf;
    this.entries = new LRUCache<string, Entry<V>>({
      max: options.max,
      ttl: options.ttlMs,
      // Every look-up reads the (monotonic) clock; the default keeps a reading for 1 ms on a timer.
      ttlResolution: 0,
      ...(options.maxSize !== undefined && sizeOf
        ? {
            maxSize: options.maxSize,
            sizeCalculation: (entry: Entry<V>, key: string) => Math.max(1, sizeOf(entry.value, key)),
          }
        : {}),
    });
    // Nothing read before an outage may serve after it: a write during the outage could not bump its generations.
    generations.onLost(() => {
      if (this.entries.size === 0) return;
      this.entries.clear();
      options.onReset?.();
    });
  }

  /** What a look-up of `key` reads besides `required` (for a request's prefetch), without touching the entry. */
  generationsOf(key: string, coarse: readonly string[]): string[] {
    const entry = this.entries.peek(key);
    return entry?.value !== undefined ? union(entry.deps, entry.learned) : union(entry?.learned, coarse);
  }

  /**
   * Looks `key` up under the generations the snapshot reads now: `required` always (e.g. the subgraph's flush
   * generation), whatever the entry depends on or learned, and `coarse()` while it has no value yet.
   */
  async lookup(
    key: string,
    snapshot: GenerationSnapshot,
    required: readonly string[],
    coarse: () => readonly string[] = () => [],
  ): Promise<GenerationLookup<V>> {
    const entry = this.entries.get(key);
    const keys = union(required, entry?.deps, entry?.learned, entry?.value === undefined ? coarse() : undefined);
    const read = await snapshot.read(keys);
    if (!read || keys.some((name) => read.get(name) === null)) return { kind: 'unknown' };
    if (entry?.value !== undefined && entry.deps.every((name, index) => read.get(name) === entry.generations[index]))
      return { kind: 'hit', value: entry.value };
    return {
      kind: 'miss',
      stale: entry?.value !== undefined,
      signature: keys.map((name) => `${name}=${read.get(name)}`).join(','),
      keep: (value, deps) => {
        // The connection failed since the request started: a write meanwhile may not have bumped anything.
        if (snapshot.epoch !== this.generations.epoch) return;
        const learned = union(required, deps);
        const stored = new Set<string>();
        for (const dep of learned) {
          const covering = read.has(dep) ? dep : coveringGenerations(dep).find((coarser) => read.has(coarser));
          if (covering === undefined) {
            this.entries.set(key, { deps: [], generations: [], value: undefined, learned });
            return;
          }
          stored.add(covering);
        }
        const under = [...stored];
        this.entries.set(key, { deps: under, generations: under.map((name) => read.get(name) ?? null), value, learned });
      },
    };
  }

  clear(): void {
    this.entries.clear();
  }
}
