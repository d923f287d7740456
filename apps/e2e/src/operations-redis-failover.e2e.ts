/**
 * Redis behind Sentinel (REDIS_URL=redis+sentinel://, ADR 0021): the master killed under load, on real processes.
 *
 * Set-up: a Sentinel group of its own (a master, a replica, three Sentinels, passwords on both; test/redis-sentinel.ts)
 * and a system of its own in production mode (the shared FerretDB, databases of its own): the four subgraphs, the
 * gateway, and two facades A and B (embedded executor), every one of them with the Sentinel URL, so every Redis user
 * is on it: rate limits (facades, gateway), the login throttle (auth), idempotency records (facades), read-cache
 * generations (bumped by the subgraphs, read by the facades and the gateway), APQ registrations (gateway).
 *
 * 1. Under load (each worker writes its own item through one facade and reads it back through the other and through
 *    GraphQL, creates with Idempotency-Key, sends persisted queries by hash), the master is SIGKILLed. Recorded: how
 *    long until the Sentinels promote the replica, and per feature what it did meanwhile and for how long. Asserted:
 *    every request answered as the fail modes say (nothing refused, no 5xx), no read older than a write that had
 *    returned, every keyed create retried after the failover replays its first answer (or that answer said
 *    `Idempotency-Status: unavailable`), and the rate-limit and login-throttle counts taken before the kill go on after
 *    it (neither lost nor counted twice).
 * 2. Writes a failover loses: the master's replication stream is held (its replicas stop receiving), then a keyed create, a
 *    PATCH of an item both facades and the gateway had cached, and rate-limit decisions are made; the master is killed
 *    and what it had not replicated is dropped. Asserted: the keyed create said `Idempotency-Status: unavailable` (no
 *    replica acknowledged its claim), and every reader serves the PATCH, though the generation bump that announced it
 *    is lost (readers drop their entries when their connection drops). Recorded: the rate-limit increments lost.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  appEnvironment,
  freePort,
  makeTempDir,
  ownSystemEnv,
  parsePrometheusText,
  startSystem,
  type ManagedProcess,
  type RunningSystem,
} from '@platform/dev-stack';
import { http, testStack, unique, type HttpResponse } from '@platform/testing';
import { startSentinelGroup, type SentinelGroup } from './test/redis-sentinel';
import { startReplica } from './test/rolling-fleet';

const stack = testStack();
const ADMIN = { username: 'failoveradmin', password: 'failover-admin-password-1' };
const WORKERS = 4;
const LOGIN_POINTS = 8;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Facade {
  url: string;
  metricsUrl: string;
}

interface Timeline {
  /** ms since the kill of the first and last answer or sample showing the feature degraded. */
  first?: number;
  last?: number;
  count: number;
}

describe('Redis behind Sentinel: the master killed under load', () => {
  const dir = makeTempDir('redis-failover-');
  let group: SentinelGroup;
  let system: RunningSystem;
  let embedded: ManagedProcess;
  let a: Facade;
  let b: Facade;
  let gateway: Facade;
  let auth: Facade;
  let adminToken: string;

  beforeAll(async () => {
    group = await startSentinelGroup(join(dir.path, 'redis'));
    // Databases of its own; the delivery worker reads the events service's.
    const databases = Object.fromEntries(
      (['users', 'items', 'auth', 'posts', 'events'] as const).map((name) => [name, { MONGO_DB: `failover_${name}` }]),
    );
    databases['deliveries'] = databases['events']!;
    system = await startSystem({
      rootDir: stack.rootDir,
      mongoUrl: stack.mongoUrl,
      redisUrl: group.url,
      jwtSecret: randomBytes(36).toString('base64url'),
      freePorts: true,
      logDir: dir.path,
      env: {
        ...ownSystemEnv(join(dir.path, 'data'), ADMIN),
        NODE_ENV: 'production',
        SUBGRAPH_SECRET: randomBytes(36).toString('base64url'),
        WEBHOOK_SECRETS_KEY: randomBytes(36).toString('base64url'),
        // The suite's FerretDB is one server, not a replica set.
        MONGO_ALLOW_STANDALONE: 'true',
        GATEWAY_MODE: 'embedded',
        // Budgets the load does not reach, in a window the test does not outlive: counts only move by the test.
        RATE_LIMIT_POINTS: '100000',
        RATE_LIMIT_WINDOW: '3600',
        LOGIN_RATE_LIMIT_POINTS: String(LOGIN_POINTS),
        LOGIN_RATE_LIMIT_BLOCK_SECONDS: '3600',
        // Freshness from invalidation alone: no entry ages out during the test.
        READ_CACHE_TTL_MS: '600000',
      },
      envFor: databases,
    });
    const metricsPort = await freePort();
    const second = await startReplica(
      stack.rootDir,
      'rest',
      { ...appEnvironment('rest', system.ports, system.env), METRICS_PORT: String(metricsPort) },
      dir.path,
      'rest-b',
    );
    embedded = second.process;
    a = { url: system.urls.rest, metricsUrl: system.metricsUrls.rest };
    b = { url: second.url, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
    gateway = { url: system.urls.gateway, metricsUrl: system.metricsUrls.gateway };
    auth = { url: system.urls.auth, metricsUrl: system.metricsUrls.auth };
    const login = await http.post(`${a.url}/token`, { form: ADMIN });
    expect({ status: login.status, body: login.text }).toEqual({ status: 200, body: expect.any(String) });
    adminToken = login.body.access_token as string;
  }, 240_000);

  afterAll(async () => {
    await embedded?.stop('SIGTERM', 10_000);
    await system?.stop();
    await group?.stop();
    if (!process.env['KEEP_TEST_DIR']) dir.remove();
    else process.stdout.write(`kept ${dir.path}\n`);
  }, 60_000);

  const itemOf = async (facade: Facade, id: number) =>
    http.get(`${facade.url}/items/${id}`, { token: adminToken });
  const graphqlItem = (id: number) =>
    http.graphql(`${gateway.url}/graphql`, 'query ($id: ID!) { item(id: $id) { id name } }', { id: String(id) }, { token: adminToken });
  const createItem = (facade: Facade, name: string, key?: string) =>
    http.post(`${facade.url}/items/`, {
      token: adminToken,
      json: { name, price: 3 },
      ...(key ? { headers: { 'idempotency-key': key } } : {}),
    });
  const metric = async (target: Facade, name: string, labels: Record<string, string> = {}): Promise<number> => {
    const samples = parsePrometheusText(await (await fetch(target.metricsUrl)).text());
    return samples
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((sum, s) => sum + s.value, 0);
  };
  /** A member's token and how many of its budget the facades have counted (X-RateLimit-Remaining). */
  const member = async () => {
    const username = `fo${unique()}`;
    const password = `pw-${unique()}-9`;
    const created = await http.post(`${a.url}/users/`, { json: { username, email: `${username}@example.com`, password } });
    expect(created.status).toBe(201);
    const login = await http.post(`${a.url}/token`, { form: { username, password } });
    return { username, password, token: login.body.access_token as string };
  };
  const remaining = async (facade: Facade, token: string) =>
    Number((await http.get(`${facade.url}/users/me`, { token })).headers.get('x-ratelimit-remaining'));
  /** Waits until writes made now are on the replica (the counts below compare master and promoted replica). */
  const replicated = async () => {
    const master = group.client(await group.masterPort());
    await master.wait(1, 2_000);
  };

  it('when the master is killed under load, then the replica takes over, every feature comes back by itself, and nothing acknowledged before the kill is lost or doubled', async () => {
    // Before: counts the failover must keep.
    const limited = await member();
    for (let i = 0; i < 20; i++) await http.get(`${a.url}/users/me`, { token: limited.token });
    const beforeKill = await remaining(a, limited.token);
    // Its login counted once; five failures more: 6 of LOGIN_POINTS spent.
    const throttled = await member();
    for (let i = 0; i < 5; i++)
      expect((await http.post(`${a.url}/token`, { form: { username: throttled.username, password: 'wrong-password-1' } })).status).toBe(401);
    const query = `query Failover${unique()} { me { id username } }`;
    const registered = await http.post(`${gateway.url}/graphql`, {
      token: adminToken,
      json: { query, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } },
    });
    expect(registered.status).toBe(200);
    const items: number[] = [];
    for (let i = 0; i < WORKERS; i++) items.push((await createItem(a, `failover item ${i}`)).body.id as number);
    await replicated();

    let killedAt = 0;
    const since = () => (killedAt === 0 ? -1 : Date.now() - killedAt);
    const failures: string[] = [];
    const stale: string[] = [];
    const degraded: Record<string, Timeline> = {};
    const note = (feature: string) => {
      const t = since();
      if (t < 0) return;
      const line = (degraded[feature] ??= { count: 0 });
      line.first ??= t;
      line.last = t;
      line.count += 1;
    };
    const counts: Record<string, number> = {};
    const expectOk = (op: string, response: HttpResponse, ok: boolean) => {
      counts[op] = (counts[op] ?? 0) + 1;
      if (!ok && failures.length < 40) failures.push(`${op} at ${since()} ms: ${response.status} ${response.text.slice(0, 160)}`);
    };
    const keyed: { key: string; id: number; unavailable: boolean; facade: Facade }[] = [];

    let running = true;
    const workers = items.map(async (id, worker) => {
      for (let n = 0; running; n++) {
        const [writer, reader] = n % 2 === 0 ? [a, b] : [b, a];
        const name = `w${worker}-${n}`;
        const written = await http.patch(`${writer.url}/items/${id}`, { token: adminToken, json: { name } });
        expectOk('patch', written, written.status === 200 && written.body.name === name);
        if (written.status === 200) {
          // The write returned: no reader may answer what it replaced.
          const read = await itemOf(reader, id);
          expectOk('read', read, read.status === 200);
          if (read.status === 200 && read.body.name !== name) stale.push(`${name} read as ${read.body.name} at ${since()} ms`);
          const viaGraphql = await graphqlItem(id);
          expectOk('graphql', viaGraphql, viaGraphql.status === 200 && !viaGraphql.body.errors);
          if (viaGraphql.body.data?.item && viaGraphql.body.data.item.name !== name)
            stale.push(`${name} read through GraphQL as ${viaGraphql.body.data.item.name} at ${since()} ms`);
        }
        const key = `failover-${unique()}`;
        const created = await createItem(reader, `keyed ${key}`, key);
        expectOk('create', created, created.status === 201);
        const unavailable = created.headers.get('idempotency-status') === 'unavailable';
        if (unavailable) note('idempotency: ran without the replay guarantee');
        if (created.status === 201) keyed.push({ key, id: created.body.id as number, unavailable, facade: reader });
        const persisted = await http.post(`${gateway.url}/graphql`, {
          token: adminToken,
          json: { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } },
        });
        if (persisted.body.errors?.[0]?.extensions?.code === 'PERSISTED_QUERY_NOT_FOUND') {
          note('APQ: hash not found (the client sends the document)');
          const full = await http.post(`${gateway.url}/graphql`, {
            token: adminToken,
            json: { query, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } },
          });
          expectOk('apq', full, full.status === 200 && !full.body.errors);
        } else expectOk('apq', persisted, persisted.status === 200 && !persisted.body.errors);
      }
    });
    // The processes' own view, sampled: Redis connection down (rate limits in-process), reads uncached.
    const sampler = (async () => {
      const bypassed = { a: await metric(a, 'read_cache_lookups_total', { result: 'bypass' }), b: 0 };
      bypassed.b = await metric(b, 'read_cache_lookups_total', { result: 'bypass' });
      while (running) {
        await sleep(100);
        for (const [name, target] of [['facade A', a], ['facade B', b], ['gateway', gateway], ['auth (login throttle)', auth]] as const) {
          if ((await metric(target, 'rate_limit_store_up')) === 0) note(`rate limits: in-process (${name})`);
        }
        for (const [name, target] of [['a', a], ['b', b]] as const) {
          const now = await metric(target, 'read_cache_lookups_total', { result: 'bypass' });
          if (now > bypassed[name]) note(`read cache: bypassed (facade ${name.toUpperCase()})`);
          bypassed[name] = now;
        }
      }
    })();

    let oldMaster: number;
    let newMaster: number;
    let promotedAfter: number;
    let reconnectedAfter: number;
    try {
      await sleep(3_000);
      oldMaster = await group.masterPort();
      killedAt = Date.now();
      await group.kill(oldMaster);
      newMaster = await group.failedOverFrom(oldMaster, 60_000);
      promotedAfter = since();
      // Until every process's rate limiter is on Redis again (bounded), then the load goes on for 5 s more.
      for (const target of [a, b, gateway, auth])
        while ((await metric(target, 'rate_limit_store_up')) !== 1 && since() < promotedAfter + 20_000) await sleep(100);
      reconnectedAfter = since();
      await sleep(5_000);
    } finally {
      running = false;
      await Promise.all([...workers, sampler]);
    }

    const report = {
      promotedAfterMs: promotedAfter,
      everyRateLimiterBackAfterMs: reconnectedAfter,
      requests: counts,
      degraded: Object.fromEntries(
        Object.entries(degraded).map(([feature, t]) => [feature, `${t.first}..${t.last} ms after the kill (${t.count} times)`]),
      ),
    };
    process.stdout.write(`redis failover: ${JSON.stringify(report, null, 2)}\n`);
    expect(newMaster).not.toBe(oldMaster);
    expect(failures).toEqual([]);
    expect(stale).toEqual([]);
    // Every feature came back by itself: nothing degraded in the last 2 s of the load, which ran 5 s after the last
    // rate limiter was back (the read cache keeps nothing for 2 s after its reconnect).
    expect(reconnectedAfter).toBeLessThan(promotedAfter + 20_000);
    for (const [feature, t] of Object.entries(degraded)) expect({ feature, backBy: t.last! < since() - 2_000 }).toEqual({ feature, backBy: true });

    // Idempotency: each keyed create retried through the other facade replays its first answer.
    const retries = await Promise.all(
      keyed.map(async (create) => {
        const other = create.facade === a ? b : a;
        const retry = await createItem(other, `keyed ${create.key}`, create.key);
        return { create, replayed: retry.headers.get('idempotent-replayed') === 'true' && retry.body.id === create.id };
      }),
    );
    const notReplayed = retries.filter((r) => !r.replayed);
    process.stdout.write(
      `redis failover: ${keyed.length} keyed creates retried, ${keyed.filter((k) => k.unavailable).length} answered without the guarantee, ${notReplayed.length} not replayed\n`,
    );
    // A retry that runs again is one the first answer warned about, never a silent duplicate.
    expect(notReplayed.filter((r) => !r.create.unavailable).map((r) => r.create.key)).toEqual([]);

    // Counts taken before the kill go on: the rate limit (one more request) and the login throttle (two more
    // attempts, then refused: LOGIN_POINTS in all). Lost, they would start again; counted twice, refuse sooner.
    expect(await remaining(b, limited.token)).toBe(beforeKill - 1);
    const attempts: number[] = [];
    for (let i = 0; i < 3; i++)
      attempts.push((await http.post(`${b.url}/token`, { form: { username: throttled.username, password: 'wrong-password-1' } })).status);
    expect(attempts).toEqual([401, 401, 429]);
  }, 300_000);

  it('when the master dies with writes it acknowledged but never replicated, then a keyed create had said so, and no reader serves what a lost invalidation announced as replaced', async () => {
    // A replica for the master (the first test's failover left it none); what the master sends its replicas is held below.
    await group.addReplica();
    const limited = await member();
    const id = (await createItem(a, 'cached before the loss')).body.id as number;
    // Cached by both facades and the gateway (the second read of each is a hit).
    for (let i = 0; i < 2; i++) {
      expect((await itemOf(a, id)).body.name).toBe('cached before the loss');
      expect((await itemOf(b, id)).body.name).toBe('cached before the loss');
      expect((await graphqlItem(id)).body.data.item.name).toBe('cached before the loss');
    }
    const hits = await metric(b, 'read_cache_lookups_total', { result: 'hit' });
    expect((await itemOf(b, id)).body.name).toBe('cached before the loss');
    expect(await metric(b, 'read_cache_lookups_total', { result: 'hit' })).toBeGreaterThan(hits);
    await http.get(`${a.url}/users/me`, { token: limited.token });
    await replicated();
    const beforeHold = await remaining(a, limited.token);

    const master = await group.masterPort();
    group.holdReplication(master);
    const key = `lost-${unique()}`;
    const keyedCreate = await createItem(a, `keyed ${key}`, key);
    expect(keyedCreate.status).toBe(201);
    expect(keyedCreate.headers.get('idempotency-status')).toBe('unavailable');
    const patched = await http.patch(`${a.url}/items/${id}`, { token: adminToken, json: { name: 'written before the loss' } });
    expect(patched.status).toBe(200);
    for (let i = 0; i < 5; i++) await http.get(`${a.url}/users/me`, { token: limited.token });

    await group.kill(master);
    await group.failedOverFrom(master, 60_000);
    // Until every process is on the new master (their rate-limit connection is up again).
    for (const target of [a, b, gateway])
      for (let t = 0; t < 100 && (await metric(target, 'rate_limit_store_up')) !== 1; t++) await sleep(100);

    // The PATCH's generation bump is gone with the old master; every reader still answers the PATCH, right after the
    // switch (no generation is read for REJOIN_MS: reads go uncached) and once reads are cached again, with the
    // generations the new master has, which are those of before the PATCH (only the entry drop keeps the old answer
    // from serving then).
    for (const wait of [0, 2_500, 500]) {
      await sleep(wait);
      expect((await itemOf(a, id)).body.name).toBe('written before the loss');
      expect((await itemOf(b, id)).body.name).toBe('written before the loss');
      expect((await graphqlItem(id)).body.data.item.name).toBe('written before the loss');
    }
    // Cached again by then (the last round's reads hit what the round before kept).
    const hitsAfter = await metric(b, 'read_cache_lookups_total', { result: 'hit' });
    expect((await itemOf(b, id)).body.name).toBe('written before the loss');
    expect(await metric(b, 'read_cache_lookups_total', { result: 'hit' })).toBeGreaterThan(hitsAfter);
    // The keyed create's retry may run again: its first answer said it could.
    const retry = await createItem(b, `keyed ${key}`, key);
    // Six requests since `beforeHold` was read: five made while the replica was held, and this one.
    const lostIncrements = (await remaining(b, limited.token)) - (beforeHold - 6);
    process.stdout.write(
      `redis failover with unreplicated writes: keyed create retried -> ${retry.status}${retry.headers.get('idempotent-replayed') ? ' replayed' : ' ran again'}; rate-limit increments lost: ${lostIncrements} of 5\n`,
    );
    expect(retry.status).toBe(201);
  }, 240_000);
});
