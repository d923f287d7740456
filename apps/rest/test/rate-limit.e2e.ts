/**
 * The facade's rate limits against a real redis-server: exact budgets under concurrency, one budget shared by two
 * facade processes, the identity rules, every rate-limit header, and the exempt endpoints (login throttling lives in the auth subgraph: apps/e2e/src/hardening-abuse.e2e.ts).
 */
import { http, testStack } from '@platform/testing';
import {
  adminToken,
  clientIp,
  startOwnRedis,
  startRest,
  tempDir,
  unique,
  type RestProcess,
} from './rate-limit-fixtures';

const POINTS = 6;
const WINDOW = 60;

describe('rate limits of the REST facade (own redis-server, two facade processes)', () => {
  const dir = tempDir('rate-limit-');
  let redis: Awaited<ReturnType<typeof startOwnRedis>>;
  let first: RestProcess;
  let second: RestProcess;

  beforeAll(async () => {
    testStack();
    redis = await startOwnRedis(dir.path);
    const env = {
      REDIS_URL: redis.url,
      RATE_LIMIT_POINTS: String(POINTS),
      RATE_LIMIT_WINDOW: String(WINDOW),
      // These tests are about shared budgets, not Redis latency: on a loaded machine an 80 ms command timeout hands
      // requests to the in-process insurance limiter (by design) and the exact counts drift.
      REDIS_COMMAND_TIMEOUT_MS: '1000',
    };
    [first, second] = await Promise.all([startRest(env, dir.path), startRest(env, dir.path)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([first?.process.stop(), second?.process.stop()]);
    await redis?.process.stop();
    dir.remove();
  }, 30_000);

  const listUsers = (base: string, headers: Record<string, string>) =>
    http.get(`${base}/users/?limit=1`, { headers });

  it('when one user sends 3N concurrent requests, then exactly N succeed and the rest are 429 with Retry-After', async () => {
    const token = adminToken(`rl-${unique()}`);
    const responses = await Promise.all(
      Array.from({ length: 3 * POINTS }, () => listUsers(first.url, { authorization: `Bearer ${token}` })),
    );
    const limited = responses.filter((r) => r.status === 429);
    const passed = responses.filter((r) => r.status !== 429);
    expect(passed).toHaveLength(POINTS);
    expect(passed.every((r) => r.status === 200)).toBe(true);
    expect(limited).toHaveLength(2 * POINTS);
    for (const response of limited) {
      const retryAfter = Number(response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(WINDOW);
      // The deployment's error shape (ERROR_FORMAT=detail), rendered by the one error handler.
      expect(response.body).toEqual({ detail: expect.stringMatching(/too many requests/i) });
    }
  });

  it('when two facade processes share Redis, then one identity has one budget across both', async () => {
    const token = adminToken(`rl-${unique()}`);
    const responses = await Promise.all(
      Array.from({ length: 3 * POINTS }, (_, i) =>
        listUsers(i % 2 === 0 ? first.url : second.url, { authorization: `Bearer ${token}` }),
      ),
    );
    expect(responses.filter((r) => r.status !== 429)).toHaveLength(POINTS);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(2 * POINTS);
    // Both processes refused some: the budget is spent jointly, not per process.
    const servedBy = (base: string) =>
      responses.filter((r, i) => (i % 2 === 0 ? first.url : second.url) === base && r.status === 429);
    expect(servedBy(first.url).length).toBeGreaterThan(0);
    expect(servedBy(second.url).length).toBeGreaterThan(0);
  });

  it('when requests succeed, then every response carries X-RateLimit-* and the IETF RateLimit fields, counting down', async () => {
    const token = adminToken(`rl-${unique()}`);
    const one = await listUsers(first.url, { authorization: `Bearer ${token}` });
    const two = await listUsers(second.url, { authorization: `Bearer ${token}` });
    expect(one.status).toBe(200);
    expect(one.headers.get('x-ratelimit-limit')).toBe(String(POINTS));
    expect(one.headers.get('x-ratelimit-remaining')).toBe(String(POINTS - 1));
    expect(two.headers.get('x-ratelimit-remaining')).toBe(String(POINTS - 2));
    const reset = Number(one.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(WINDOW);
    expect(one.headers.get('ratelimit-policy')).toBe(`"default";q=${POINTS};w=${WINDOW}`);
    expect(one.headers.get('ratelimit')).toMatch(new RegExp(`^"default";r=${POINTS - 1};t=\\d+$`));
    // Error responses count and carry the headers too.
    const notFound = await http.get(`${first.url}/no-such-resource`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('x-ratelimit-remaining')).toBe(String(POINTS - 3));
  });

  it('when a request is refused, then its headers say nothing is left and when the window resets', async () => {
    const ip = clientIp();
    for (let i = 0; i < POINTS; i += 1)
      await http.get(`${first.url}/no-such-resource`, { headers: { 'x-forwarded-for': ip } });
    const refused = await http.get(`${first.url}/no-such-resource`, { headers: { 'x-forwarded-for': ip } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit')).toBe(String(POINTS));
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(refused.headers.get('retry-after'));
    expect(refused.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);
  });

  it('when health and docs endpoints are called past the budget, then they answer normally without rate-limit headers', async () => {
    const ip = clientIp();
    for (let i = 0; i <= POINTS; i += 1)
      await http.get(`${first.url}/no-such-resource`, { headers: { 'x-forwarded-for': ip } });
    expect(
      (await http.get(`${first.url}/no-such-resource`, { headers: { 'x-forwarded-for': ip } })).status,
    ).toBe(429);
    for (const path of ['/healthz', '/readyz', '/docs', '/openapi.json']) {
      const response = await http.get(`${first.url}${path}`, { headers: { 'x-forwarded-for': ip } });
      expect([path, response.status]).toEqual([path, 200]);
      expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  it('when a token is invalid, then it spends the client IP budget, not a bucket of its own', async () => {
    const ip = clientIp();
    const forged = `${adminToken(`rl-${unique()}`)}x`;
    const withForged = await http.get(`${first.url}/no-such-resource`, {
      headers: { 'x-forwarded-for': ip, authorization: `Bearer ${forged}` },
    });
    expect(withForged.headers.get('x-ratelimit-remaining')).toBe(String(POINTS - 1));
    const anonymous = await http.get(`${first.url}/no-such-resource`, { headers: { 'x-forwarded-for': ip } });
    expect(anonymous.headers.get('x-ratelimit-remaining')).toBe(String(POINTS - 2));
  });

  it('when the same user or API key comes from different IPs, then one budget is spent; different users have their own', async () => {
    const token = adminToken(`rl-${unique()}`);
    const a = await http.get(`${first.url}/no-such-resource`, {
      headers: { 'x-forwarded-for': clientIp(), authorization: `Bearer ${token}` },
    });
    const b = await http.get(`${second.url}/no-such-resource`, {
      headers: { 'x-forwarded-for': clientIp(), authorization: `Bearer ${token}` },
    });
    expect([a.headers.get('x-ratelimit-remaining'), b.headers.get('x-ratelimit-remaining')]).toEqual([
      String(POINTS - 1),
      String(POINTS - 2),
    ]);
    const other = await http.get(`${first.url}/no-such-resource`, {
      headers: { authorization: `Bearer ${adminToken(`rl-${unique()}`)}` },
    });
    expect(other.headers.get('x-ratelimit-remaining')).toBe(String(POINTS - 1));

    const key = `ak_${unique()}`;
    const k1 = await http.get(`${first.url}/no-such-resource`, {
      headers: { 'x-forwarded-for': clientIp(), 'x-api-key': key },
    });
    const k2 = await http.get(`${second.url}/no-such-resource?api_key=${key}`, {
      headers: { 'x-forwarded-for': clientIp() },
    });
    expect([k1.headers.get('x-ratelimit-remaining'), k2.headers.get('x-ratelimit-remaining')]).toEqual([
      String(POINTS - 1),
      String(POINTS - 2),
    ]);
  });
});
