/** The gateway's APQ cache on the test run's real redis-server: bounded registrations, and an outage is only a miss. */
import { createLogger } from '@platform/logging';
import { freePort } from '@platform/dev-stack';
import { testStack } from '@platform/testing';
import { RedisApqCache } from '../src/persisted-operations';

const stack = testStack();
const logger = createLogger('apq-cache-test', 'silent');
const prefix = () => `test-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}:`;

describe('RedisApqCache', () => {
  it('when more documents are registered in one TTL window than APQ_MAX_ENTRIES, then the surplus is not stored', async () => {
    const cache = new RedisApqCache({
      redisUrl: stack.redisUrl,
      ttlSeconds: 3600,
      maxDocumentBytes: 1024,
      maxEntries: 2,
      commandTimeoutMs: 1000,
      logger,
      keyPrefix: prefix(),
    });
    try {
      expect(await cache.ready(5_000)).toBe(true);
      for (const key of ['a', 'b', 'c']) await cache.set(key, `query ${key.toUpperCase()} { __typename }`);
      expect([await cache.get('a'), await cache.get('b'), await cache.get('c')]).toEqual([
        'query A { __typename }',
        'query B { __typename }',
        undefined,
      ]);
      expect(await cache.delete('a')).toBe(true);
      expect(await cache.get('a')).toBeUndefined();
    } finally {
      await cache.close();
    }
  });

  it('when Redis is unreachable, then get is a quick miss and set does not throw', async () => {
    const cache = new RedisApqCache({
      redisUrl: `redis://127.0.0.1:${await freePort()}`,
      ttlSeconds: 60,
      maxDocumentBytes: 1024,
      maxEntries: 10,
      commandTimeoutMs: 80,
      logger,
    });
    try {
      const started = Date.now();
      await expect(cache.set('x', 'query X { __typename }')).resolves.toBeUndefined();
      await expect(cache.get('x')).resolves.toBeUndefined();
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      await cache.close();
    }
  });
});
