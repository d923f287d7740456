/**
 * Answers of another service kept under the generations of what they read (GenerationCache), for whoever checks an
 * account or a key on every request or try: the facade's and gateway's credential checks (libs/federation
 * kept-verdicts.ts) and the delivery worker's check of a webhook owner (apps/deliveries owner-rights.ts).
 *
 * One look-up: the generations are read first (the snapshot), then the answer is served from memory while they are
 * unchanged, or asked and kept under the values read before the ask. Checks that read the same generations share one
 * ask in flight; one that started after a write returned never joins an ask sent before it (ADR 0017's argument for
 * the read cache's deduplication). Where the generations are unknown (no Redis, Redis not answering, no writer has set
 * them), every look-up asks and nothing is kept.
 */
import { GenerationCache } from './generation-cache';
import type { GenerationSnapshot } from './generation-snapshot';
import type { RedisGenerations } from './redis-generations';

export interface KeptAnswersOptions {
  /** The process's generations; absent (no REDIS_URL): nothing is kept, every look-up asks. */
  generations: RedisGenerations | undefined;
  /** The oldest an answer may serve (bounds only a write whose bump could not reach Redis); 0: nothing is kept. */
  ttlMs: number;
  maxEntries: number;
}

export class KeptAnswers<V> {
  private readonly cache: GenerationCache<V> | undefined;
  private readonly inFlight = new Map<string, Promise<V>>();

  constructor(options: KeptAnswersOptions) {
    this.cache =
      options.generations && options.ttlMs > 0
        ? new GenerationCache<V>(options.generations, { max: options.maxEntries, ttlMs: options.ttlMs })
        : undefined;
  }

  /** Whether anything is kept at all (generations given and a ttl above 0). */
  get keeping(): boolean {
    return this.cache !== undefined;
  }

  /** What looking `key` up reads now besides `required` (for a request's prefetch). */
  generationsOf(key: string, coarse: readonly string[]): string[] {
    return this.cache ? this.cache.generationsOf(key, coarse) : [];
  }

  /**
   * The answer for `key`: kept, or asked (`ask`) and kept under `dependsOn(answer)`. `required` and `coarse` as
   * GenerationCache.lookup takes them. `hit`: answered from memory. What `ask` throws is thrown (nothing kept).
   */
  async get(
    key: string,
    snapshot: GenerationSnapshot | undefined,
    lookup: { required: readonly string[]; coarse?: readonly string[] },
    ask: () => Promise<V>,
    dependsOn: (answer: V) => readonly string[],
  ): Promise<{ value: V; hit: boolean }> {
    const found =
      this.cache && snapshot
        ? await this.cache.lookup(key, snapshot, lookup.required, () => lookup.coarse ?? [])
        : ({ kind: 'unknown' } as const);
    if (found.kind === 'hit') return { value: found.value, hit: true };
    if (found.kind === 'unknown') return { value: await ask(), hit: false };
    const shared = `${key}\n${found.signature}`;
    let pending = this.inFlight.get(shared);
    if (!pending) {
      pending = ask().finally(() => this.inFlight.delete(shared));
      this.inFlight.set(shared, pending);
    }
    const value = await pending;
    found.keep(value, dependsOn(value));
    return { value, hit: false };
  }
}
