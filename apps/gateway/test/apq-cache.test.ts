/**
 * The gateway's APQ cache on the test run's real redis-server: registrations charged to their client within its own
 * budget and the shared ones (count and bytes per TTL window), a bounded number of keys whatever one client sends, and
 * an outage is only a miss.
 */
import { Redis } from 'ioredis';
import { createLogger } from '@platform/logging';
import { freePort } from '@platform/dev-stack';
import { testInfra, unique } from '@platform/testing';
import { RedisApqCache, type RedisApqCacheOptions } from '../src/persisted-operations';

const stack = testInfra();
const logger = createLogger('apq-cache-test', 'silent');
const document = (name: string) => `query ${name} { __typename }`;

describe('RedisApqCache', () => {
  const caches: RedisApqCache[] = [];
  afterAll(() => Promise.all(caches.map((cache) => cache.close())));

  async function cacheWith(
    options: Partial<RedisApqCacheOptions>,
  ): Promise<{ cache: RedisApqCache; prefix: string }> {
    const prefix = `test-${unique()}:`;
    const cache = new RedisApqCache({
      redisUrl: stack.redisUrl,
      ttlSeconds: 3600,
      maxDocumentBytes: 1024,
      maxEntries: 1000,
      maxBytes: 1_000_000,
      clientMaxBytes: 1_000_000,
      commandTimeoutMs: 1000,
      logger,
      keyPrefix: prefix,
      ...options,
    });
    caches.push(cache);
    expect(await cache.ready(5_000)).toBe(true);
    return { cache, prefix };
  }

  it('when more documents are registered in one TTL window than APQ_MAX_ENTRIES, then the surplus is not stored', async () => {
    const { cache } = await cacheWith({ maxEntries: 2 });
    const outcomes = [];
    for (const [key, client] of [
      ['a', 'ip:1'],
      ['b', 'ip:2'],
      ['c', 'ip:3'],
    ] as const)
      outcomes.push(await cache.register(key, document(key.toUpperCase()), client));
    expect(outcomes).toEqual(['stored', 'stored', 'shared-budget']);
    expect([await cache.get('apq:a'), await cache.get('apq:b'), await cache.get('apq:c')]).toEqual([
      document('A'),
      document('B'),
      undefined,
    ]);
    expect(await cache.delete('apq:a')).toBe(true);
    expect(await cache.get('apq:a')).toBeUndefined();
  });

  it('when one client spends its budget, then its next registrations are refused while another client still registers', async () => {
    const size = Buffer.byteLength(document('Q000'));
    const { cache } = await cacheWith({ clientMaxBytes: size * 3 });
    const flood = [];
    for (let i = 0; i < 20; i += 1)
      flood.push(
        await cache.register(`flood${i}`, document(`Q${String(i).padStart(3, '0')}`), 'ip:10.0.0.1'),
      );
    expect(flood.filter((outcome) => outcome === 'stored')).toHaveLength(3);
    expect(flood.slice(3)).toEqual(Array(17).fill('client-budget'));
    expect(await cache.register('other', document('Other'), 'u:someone-else')).toBe('stored');
    // A document someone already registered costs nothing and is not refused, even to a client out of budget.
    expect(await cache.register('other', document('Other'), 'ip:10.0.0.1')).toBe('exists');
  });

  it('when registrations would exceed APQ_MAX_BYTES in the window, then the shared budget refuses them', async () => {
    const size = Buffer.byteLength(document('B000'));
    const { cache } = await cacheWith({ maxBytes: size * 4 });
    const outcomes = [];
    for (let i = 0; i < 6; i += 1)
      outcomes.push(
        await cache.register(`bytes${i}`, document(`B${String(i).padStart(3, '0')}`), `ip:10.0.1.${i}`),
      );
    expect(outcomes).toEqual(['stored', 'stored', 'stored', 'stored', 'shared-budget', 'shared-budget']);
    expect(await cache.register('large', 'x'.repeat(2_000), 'ip:10.0.2.1')).toBe('too-large');
  });

  it('when one client floods registrations, then Redis holds at most its budget and one counter for it', async () => {
    const { cache, prefix } = await cacheWith({ clientMaxBytes: 2_048 });
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => cache.register(`many${i}`, document(`M${i}`), 'ip:10.9.9.9')),
    );
    const redis = new Redis(stack.redisUrl);
    try {
      const keys = await redis.keys(`${prefix}*`);
      const documents = keys.filter((key) => !key.includes(':window:'));
      const counters = keys.filter((key) => key.includes(':client:'));
      const bytes = (await Promise.all(documents.map((key) => redis.strlen(key)))).reduce((a, b) => a + b, 0);
      expect(bytes).toBeLessThanOrEqual(2_048);
      expect(documents.length).toBeGreaterThan(0);
      expect(counters).toHaveLength(1);
      // One window: its count and bytes, and the client's counter.
      expect(keys.length).toBe(documents.length + 3);
    } finally {
      redis.disconnect();
    }
  });

  it('when Redis is unreachable, then get is a quick miss and a registration is only reported unavailable', async () => {
    const cache = new RedisApqCache({
      redisUrl: `redis://127.0.0.1:${await freePort()}`,
      ttlSeconds: 60,
      maxDocumentBytes: 1024,
      maxEntries: 10,
      maxBytes: 10_000,
      clientMaxBytes: 1_000,
      commandTimeoutMs: 80,
      logger,
    });
    caches.push(cache);
    const started = Date.now();
    await expect(cache.register('x', document('X'), 'ip:1')).resolves.toBe('unavailable');
    await expect(cache.set()).resolves.toBeUndefined();
    await expect(cache.get('apq:x')).resolves.toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
