/** libs/config's one Redis connection function (every store here opens through it), on the suite's redis-server. */
import { createLogger } from '@platform/logging';
import { testInfra } from '@platform/testing';
import { closeRedis, connectRedis, redisReady, writesReplicated } from '@platform/config';

const logger = createLogger('redis-connection-test', 'silent');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('connectRedis', () => {
  it('when a connection ends without closeRedis (as ioredis ends one whose connector threw), then it connects again by itself; after closeRedis it stays closed', async () => {
    const redis = connectRedis(testInfra().redisUrl, 500, logger, { purpose: 'test', fallback: 'none' });
    try {
      expect(await redisReady(redis, 5_000)).toBe(true);
      redis.disconnect();
      await sleep(100);
      expect(redis.status).toBe('end');
      expect(await redisReady(redis, 5_000)).toBe(true);
      expect(await redis.ping()).toBe('PONG');
    } finally {
      await closeRedis(redis);
    }
    await sleep(1_500);
    expect(redis.status).toBe('end');
  });

  it('when Redis is one node, then writes count as replicated without asking (there is no failover to lose them to)', async () => {
    const redis = connectRedis(testInfra().redisUrl, 500, logger, { purpose: 'test', fallback: 'none' });
    try {
      expect(await redisReady(redis, 5_000)).toBe(true);
      const started = Date.now();
      expect(await writesReplicated(redis)).toBe(true);
      expect(Date.now() - started).toBeLessThan(100);
    } finally {
      await closeRedis(redis);
    }
  });
});
