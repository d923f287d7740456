/**
 * The generations against the stack's real redis-server (docs/decisions/0019-entity-generations.md): what a write bumps,
 * what a kept value is kept under (its own documents, or the coarser generations covering them the first time), and a
 * request reading them in one round trip. Each test uses a subgraph name of its own.
 */
import { createLogger } from '@platform/logging';
import { testInfra, unique } from '@platform/testing';
import { GenerationCache } from './generation-cache';
import { anyGeneration, collectionGeneration, entityGeneration, flushGeneration } from './generation-keys';
import { GenerationReader } from './generation-snapshot';
import { RedisGenerations } from './redis-generations';
import { createSubgraphWrites, type SubgraphWrites } from './subgraph-writes';

const stack = testInfra();
const logger = createLogger('test', 'silent');

describe('generations in Redis', () => {
  let generations: RedisGenerations;
  let reader: GenerationReader;
  const writers: SubgraphWrites[] = [];
  let subgraph: string;

  /** The flush generation once the writer's start-up flush landed (its connection needs a moment). */
  const flushed = async (): Promise<void> => {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const value = await generations.read([flushGeneration(subgraph)]).catch(() => null);
      if (value?.get(flushGeneration(subgraph))) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('no start-up flush');
  };
  const writer = async (): Promise<SubgraphWrites> => {
    const writes = createSubgraphWrites({ subgraph, redisUrl: stack.redisUrl, logger })!;
    writers.push(writes);
    await flushed();
    return writes;
  };
  const wrote = (writes: SubgraphWrites, collection: string, ...ids: string[]) =>
    writes.wrote({ flush: false, documents: new Map([[collection, new Set(ids)]]) });

  beforeAll(() => {
    generations = new RedisGenerations({ redisUrl: stack.redisUrl, commandTimeoutMs: 1_000, logger, purpose: 'test', fallback: 'none' });
    reader = new GenerationReader(generations);
  });
  beforeEach(() => {
    subgraph = `gen${unique()}`;
  });
  afterAll(async () => {
    await Promise.all(writers.map((writes) => writes.close()));
    await reader.close();
  });

  it("when a document is written, then its generation, its collection's and its subgraph's `any` move; the flush and other documents' stay", async () => {
    const writes = await writer();
    const keys = [
      flushGeneration(subgraph),
      anyGeneration(subgraph),
      collectionGeneration(subgraph, 'users'),
      entityGeneration(subgraph, 'users', '1'),
      entityGeneration(subgraph, 'users', '2'),
    ];
    const before = await generations.read(keys);
    await wrote(writes, 'users', '1');
    const after = await generations.read(keys);
    expect(keys.map((key) => after.get(key) !== before.get(key))).toEqual([false, true, true, true, false]);
    // A write that cannot name its documents moves the flush generation, which every reader reads.
    await writes.wrote({ flush: true, documents: new Map() });
    expect((await generations.read(keys)).get(flushGeneration(subgraph))).not.toBe(after.get(flushGeneration(subgraph)));
  });

  it('when no writer of a subgraph has reached Redis, then its flush generation is missing and nothing may be kept', async () => {
    // Connected (another subgraph's writer flushed), but none of this one.
    const other = subgraph;
    subgraph = `${other}x`;
    await writer();
    subgraph = other;
    const cache = new GenerationCache<string>(generations, { max: 10, ttlMs: 60_000 });
    expect(await cache.lookup('k', reader.snapshot(), [flushGeneration(subgraph)])).toEqual({ kind: 'unknown' });
  });

  it('when a value is kept, then it serves until a write to what it read, and writes to other documents of the same collection leave it', async () => {
    const writes = await writer();
    const cache = new GenerationCache<string>(generations, { max: 10, ttlMs: 60_000 });
    const required = [flushGeneration(subgraph)];
    const coarse = () => [anyGeneration(subgraph)];
    const deps = [flushGeneration(subgraph), entityGeneration(subgraph, 'users', '7')];
    const lookup = () => cache.lookup('user 7', reader.snapshot(), required, coarse);

    // First fetch: its documents were not known before it, so it is kept under the subgraph's `any`.
    const first = await lookup();
    if (first.kind !== 'miss') throw new Error(first.kind);
    first.keep('v1', deps);
    expect(await lookup()).toEqual({ kind: 'hit', value: 'v1' });
    // Another document written: `any` moved, so once more; now kept under user 7's own generation.
    await wrote(writes, 'users', '8');
    const second = await lookup();
    expect(second).toMatchObject({ kind: 'miss', stale: true });
    if (second.kind === 'miss') second.keep('v2', deps);
    await wrote(writes, 'users', '8');
    await wrote(writes, 'users', '9');
    expect(await lookup()).toEqual({ kind: 'hit', value: 'v2' });
    // User 7 written: the next look-up misses, on any reader.
    await wrote(writes, 'users', '7');
    expect(await lookup()).toMatchObject({ kind: 'miss', stale: true });
  });

  it('when a value depends on what was neither read nor covered before its fetch, then only the lesson is kept: the next fetch is kept', async () => {
    await writer();
    const cache = new GenerationCache<string>(generations, { max: 10, ttlMs: 60_000 });
    const required = [flushGeneration(subgraph)];
    const deps = [flushGeneration(subgraph), collectionGeneration(subgraph, 'posts')];
    const first = await cache.lookup('list', reader.snapshot(), required);
    if (first.kind !== 'miss') throw new Error(first.kind);
    first.keep('v1', deps);
    const second = await cache.lookup('list', reader.snapshot(), required);
    expect(second).toMatchObject({ kind: 'miss', stale: false });
    if (second.kind === 'miss') second.keep('v2', deps);
    expect(await cache.lookup('list', reader.snapshot(), required)).toEqual({ kind: 'hit', value: 'v2' });
  });

  it('when a request of a kind seen before starts, then it reads every generation it needs in one round trip', async () => {
    await writer();
    const keys = [flushGeneration(subgraph), entityGeneration(subgraph, 'users', '3')];
    let reads = 0;
    const read = generations.read.bind(generations);
    generations.read = (wanted) => {
      reads += 1;
      return read(wanted);
    };
    try {
      const hint = `GET /users/3 ${subgraph}`;
      const first = reader.snapshot(hint);
      first.prefetch([flushGeneration(subgraph)]);
      await first.read(keys);
      expect(reads).toBe(2);
      const next = reader.snapshot(hint);
      next.prefetch([flushGeneration(subgraph)]);
      await next.read(keys);
      await next.read([keys[1]!]);
      expect(reads).toBe(3);
    } finally {
      generations.read = read;
    }
  });
});
