/**
 * The generations across a lost connection, against the stack's real redis-server (docs/decisions/0021): every Sentinel
 * failover is a lost connection for every reader, and what the old master acknowledged but never replicated (a
 * generation bump) is gone with it. So nothing kept before the loss serves after it, and nothing read within REJOIN_MS
 * of the connection's return is used: a writer whose bump failed meanwhile lands its flush first.
 */
import type { Redis } from 'ioredis';
import { createLogger } from '@platform/logging';
import { testInfra, unique } from '@platform/testing';
import { GenerationCache } from './generation-cache';
import { anyGeneration, entityGeneration, flushGeneration } from './generation-keys';
import { GenerationReader } from './generation-snapshot';
import { REJOIN_MS, RedisGenerations } from './redis-generations';
import { createSubgraphWrites, type SubgraphWrites } from './subgraph-writes';

const stack = testInfra();
const logger = createLogger('test', 'silent');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('generations across a lost connection', () => {
  let generations: RedisGenerations;
  let reader: GenerationReader;
  let writes: SubgraphWrites;
  const subgraph = `rejoin${unique()}`;

  /** Drops the reader's connection as a failover does (the socket closes; ioredis connects again by itself). */
  const dropConnection = async (): Promise<void> => {
    const redis = (generations as unknown as { redis: Redis }).redis;
    const closed = new Promise((resolve) => redis.once('close', resolve));
    redis.disconnect(true);
    await closed;
    for (let i = 0; i < 200 && redis.status !== 'ready'; i++) await sleep(10);
    expect(redis.status).toBe('ready');
  };

  beforeAll(async () => {
    generations = new RedisGenerations({ redisUrl: stack.redisUrl, commandTimeoutMs: 1_000, logger, purpose: 'test', fallback: 'none' });
    reader = new GenerationReader(generations);
    writes = createSubgraphWrites({ subgraph, redisUrl: stack.redisUrl, logger })!;
    // The writer's start-up flush makes the subgraph's flush generation exist.
    for (let i = 0; i < 100; i++) {
      const value = await generations.read([flushGeneration(subgraph)]).catch(() => null);
      if (value?.get(flushGeneration(subgraph))) break;
      await sleep(20);
    }
  });
  afterAll(async () => {
    await writes.close();
    await reader.close();
  });

  it('when the connection drops and comes back, then nothing kept before serves, nothing is read for REJOIN_MS, and then values are kept again', async () => {
    const cache = new GenerationCache<string>(generations, { max: 10, ttlMs: 60_000 });
    const required = [flushGeneration(subgraph)];
    const coarse = () => [anyGeneration(subgraph)];
    const deps = [flushGeneration(subgraph), entityGeneration(subgraph, 'items', '1')];
    const lookup = () => cache.lookup('item 1', reader.snapshot(), required, coarse);
    const first = await lookup();
    if (first.kind !== 'miss') throw new Error(first.kind);
    first.keep('before', deps);
    expect(await lookup()).toEqual({ kind: 'hit', value: 'before' });
    // A request that started before the loss keeps nothing it fetched.
    const started = await lookup();
    expect(started.kind).toBe('hit');
    const inFlight = await cache.lookup('item 2', reader.snapshot(), required, coarse);
    if (inFlight.kind !== 'miss') throw new Error(inFlight.kind);

    // No generation changes in Redis (a bump lost with the old master looks exactly like this to the reader).
    await dropConnection();
    const backAt = Date.now();
    inFlight.keep('fetched across the loss', deps);
    // Back, but within REJOIN_MS: generations are not read, so nothing serves and nothing is kept.
    expect(generations.settled).toBe(false);
    expect(await lookup()).toEqual({ kind: 'unknown' });
    expect(await reader.snapshot().read(required)).toBeUndefined();

    await sleep(Math.max(0, backAt + REJOIN_MS + 50 - Date.now()));
    expect(generations.settled).toBe(true);
    // The entry kept before the loss is gone (its generations are unchanged, yet it is a miss), as is the fetch that
    // spanned the loss; a fetch now is kept and serves.
    const after = await lookup();
    expect(after).toMatchObject({ kind: 'miss', stale: false });
    expect(await cache.lookup('item 2', reader.snapshot(), required, coarse)).toMatchObject({ kind: 'miss', stale: false });
    if (after.kind === 'miss') after.keep('after', deps);
    expect(await lookup()).toEqual({ kind: 'hit', value: 'after' });
  });
});
