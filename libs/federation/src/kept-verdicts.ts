/**
 * What both credential checks do with their subgraph's answers (access-token-status.ts, api-key-exchange.ts): keep each
 * under the generations of what it read (libs/read-cache GenerationCache), share one call between checks that read the
 * same generations, ask on every request when the generations are unknown (no Redis, Redis not answering), and turn a
 * call that failed into the GraphQL error the operation fails with (503 while the subgraph cannot say).
 */
import { GraphQLError } from 'graphql';
import { AppError } from '@platform/errors';
import { GenerationCache, type GenerationSnapshot, type RedisGenerations } from '@platform/read-cache';

export interface KeptVerdictsOptions {
  /** The process's generations; absent (no REDIS_URL): nothing is kept, every check asks. */
  generations: RedisGenerations | undefined;
  /** The oldest a verdict may serve (bounds only a write whose bump could not reach Redis); 0: nothing is kept. */
  ttlMs: number;
  maxEntries: number;
}

export class KeptVerdicts<V> {
  private readonly cache: GenerationCache<V> | undefined;
  private readonly inFlight = new Map<string, Promise<V>>();

  constructor(options: KeptVerdictsOptions) {
    this.cache =
      options.generations && options.ttlMs > 0
        ? new GenerationCache<V>(options.generations, { max: options.maxEntries, ttlMs: options.ttlMs })
        : undefined;
  }

  /** What checking `key` reads now besides `required` (prefetched with the rest of the request's generations). */
  generationsOf(key: string, coarse: readonly string[]): string[] {
    return this.cache ? this.cache.generationsOf(key, coarse) : [];
  }

  /**
   * The verdict for `key`: kept, or asked (`ask`) and kept under `dependsOn(verdict)`. `required` and `coarse` as
   * GenerationCache.lookup takes them. `hit`: answered from memory.
   */
  async get(
    key: string,
    snapshot: GenerationSnapshot | undefined,
    lookup: { required: readonly string[]; coarse?: readonly string[] },
    ask: () => Promise<V>,
    dependsOn: (verdict: V) => readonly string[],
  ): Promise<{ verdict: V; hit: boolean }> {
    const found =
      this.cache && snapshot
        ? await this.cache.lookup(key, snapshot, lookup.required, () => lookup.coarse ?? [])
        : ({ kind: 'unknown' } as const);
    if (found.kind === 'hit') return { verdict: found.value, hit: true };
    if (found.kind === 'unknown') return { verdict: await asked(ask), hit: false };
    // Shared only by checks that read the same generations: one that started after a write returned never joins a
    // call sent before it (ADR 0017's argument for the read cache's deduplication).
    const shared = `${key}\n${found.signature}`;
    let pending = this.inFlight.get(shared);
    if (!pending) {
      pending = asked(ask).finally(() => this.inFlight.delete(shared));
      this.inFlight.set(shared, pending);
    }
    const verdict = await pending;
    found.keep(verdict, dependsOn(verdict));
    return { verdict, hit: false };
  }
}

/** A check that could not be made is the dependency's outage (503), asked again next time; never a pass. */
async function asked<V>(ask: () => Promise<V>): Promise<V> {
  try {
    return await ask();
  } catch (error) {
    const unavailable = !(error instanceof AppError) || error.code === 'SERVICE_UNAVAILABLE';
    throw new GraphQLError(unavailable ? 'Service temporarily unavailable' : 'Internal server error', {
      extensions: {
        code: unavailable ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_SERVER_ERROR',
        http: { status: unavailable ? 503 : 500 },
      },
    });
  }
}
