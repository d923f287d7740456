/**
 * Redis outages under load: the facade keeps answering (in-process insurance limiter, RATE_LIMIT_FAIL_MODE=open)
 * within 1 s and without 5xx while its own redis-server is killed, and limits return to Redis when it is back;
 * with RATE_LIMIT_FAIL_MODE=closed an unreachable Redis is a fast 503 with Retry-After.
 *
 * The reads go to a users subgraph on a database of its own: the suite's other files keep writing users on the shared
 * one, and every such write invalidates the cached listing, so there a listing's time is that of a FerretDB scan under
 * someone else's load (a full run measured 1.0-1.3 s for some, before the kill as well as after it), not the facade's.
 */
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { ALL_SCOPES, signAccessToken } from '@platform/auth';
import { freePort, startRedis, type RunningInfra } from '@platform/dev-stack';
import { stackSubgraphUrls, suiteApps, testStack, unique, type ExtraApp } from '@platform/testing';

const stack = testStack();
const tokenFor = (sub: string) =>
  signAccessToken(
    { sub, uid: null, role: 'admin', scopes: [...ALL_SCOPES], kind: 'user' },
    stack.jwtSecret,
    600,
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Sample {
  status: number;
  ms: number;
  at: number;
}

async function timed(url: string, token: string, startedAt: number): Promise<Sample> {
  const began = performance.now();
  try {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5_000),
    });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - began, at: began - startedAt };
  } catch {
    return { status: 0, ms: performance.now() - began, at: began - startedAt };
  }
}

describe('rate limits while Redis fails', () => {
  // Large enough that the load is served, not refused: the point is availability while Redis is gone.
  const POINTS = 1_000;
  const apps = suiteApps('redis-outage-');
  let redis: RunningInfra;
  let redisPort: number;
  let rest: ExtraApp;

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedis({ dataDir: join(apps.dir.path, 'redis'), port: redisPort });
    // Whichever redis-server runs at the end (the test below restarts it).
    apps.track({ process: { stop: () => redis.process.stop() } });
    const users = await apps.start('users', {
      MONGO_URL: stack.mongoUrl,
      MONGO_DB: `api_users_redis_outage_${unique()}`,
      ...stackSubgraphUrls(),
    });
    rest = await apps.start('rest', {
      // The reads run in this facade's own executor, so they reach the users subgraph above and not the shared one.
      GATEWAY_MODE: 'embedded',
      ...stackSubgraphUrls({ users: `${users.url}/graphql` }),
      REDIS_URL: redis.url,
      RATE_LIMIT_POINTS: String(POINTS),
      RATE_LIMIT_WINDOW: '60',
    });
  }, 60_000);

  it('when redis-server is killed during a load and started again, then every request answers within 1 s without 5xx, and limits resume on Redis', async () => {
    const startedAt = performance.now();
    const samples: Sample[] = [];
    let running = true;
    const worker = async (index: number) => {
      // Each worker is its own user; half read through the gateway, half hit a path that needs no gateway.
      const path = index % 2 === 0 ? '/users/?limit=1' : '/no-such-resource';
      const token = tokenFor(`outage-${index}-${unique()}`);
      while (running) samples.push(await timed(`${rest.url}${path}`, token, startedAt));
    };
    const workers = Array.from({ length: 6 }, (_, i) => worker(i));

    await sleep(700);
    await redis.process.stop('SIGKILL');
    const killedAt = performance.now() - startedAt;
    await sleep(1_500);
    redis = await startRedis({ dataDir: join(apps.dir.path, 'redis'), port: redisPort });
    await sleep(1_000);
    running = false;
    await Promise.all(workers);

    const duringOutage = samples.filter((s) => s.at > killedAt);
    expect(duringOutage.length).toBeGreaterThan(20);
    expect(samples.filter((s) => s.status === 0 || s.status >= 500)).toEqual([]);
    expect(samples.filter((s) => s.ms >= 1_000)).toEqual([]);
    // Requests kept being served (not just refused) while Redis was gone.
    expect(duringOutage.some((s) => s.status === 200)).toBe(true);

    // Back on Redis: a fresh identity's counter appears in the restarted Redis and counts every further request.
    const probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await probe.connect();
      const sub = `resume-${unique()}`;
      let stored = 0;
      for (let attempt = 0; attempt < 50 && stored === 0; attempt += 1) {
        await timed(`${rest.url}/no-such-resource`, tokenFor(`${sub}-${attempt}`), startedAt);
        stored = await probe.exists(`rl:rest:u:${sub}-${attempt}`);
        if (stored === 0) await sleep(100);
      }
      expect(stored).toBe(1);
      const token = tokenFor(sub);
      const burst = await Promise.all(
        Array.from({ length: 12 }, () => timed(`${rest.url}/no-such-resource`, token, startedAt)),
      );
      expect(burst.every((s) => s.status === 404)).toBe(true);
      expect(await probe.get(`rl:rest:u:${sub}`)).toBe('12');
    } finally {
      probe.disconnect();
    }
  }, 60_000);
});

describe('rate limits with RATE_LIMIT_FAIL_MODE=closed and Redis unreachable', () => {
  const apps = suiteApps('redis-closed-');
  let rest: ExtraApp;

  beforeAll(async () => {
    const nothingListens = await freePort();
    rest = await apps.start('rest', {
      REDIS_URL: `redis://127.0.0.1:${nothingListens}`,
      RATE_LIMIT_FAIL_MODE: 'closed',
    });
  }, 60_000);

  it('when a limited request arrives, then it is refused at once with 503 and Retry-After; health and docs still answer', async () => {
    const sample = await timed(
      `${rest.url}/users/?limit=1`,
      tokenFor(`closed-${unique()}`),
      performance.now(),
    );
    expect(sample.status).toBe(503);
    expect(sample.ms).toBeLessThan(1_000);
    const response = await fetch(`${rest.url}/users/?limit=1`);
    expect(response.headers.get('retry-after')).toBe('1');
    expect((await fetch(`${rest.url}/openapi.json`)).status).toBe(200);
  });
});
