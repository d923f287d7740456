/**
 * The read cache (docs/decisions/0017-read-cache.md) on a system of its own: the subgraphs, the gateway, a remote facade
 * (A) and an embedded one (B, the default mode), all sharing one redis-server that keeps its data across a restart. A
 * write through one replica is seen by the next read through the other and through GraphQL, also while writes and
 * reads race; callers with other rights never get each
 * other's cached answers; with Redis gone reads stay fresh and writes succeed, and nothing cached before serves after.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  appEnvironment,
  ensureRedisServer,
  freePort,
  makeTempDir,
  startApp,
  startProcess,
  startSystem,
  ownSystemEnv,
  waitForHttpOk,
  waitForPort,
  parsePrometheusText,
  type ManagedProcess,
  type RunningSystem,
} from '@platform/dev-stack';
import { Redis } from 'ioredis';
import { http, testStack } from '@platform/testing';
import { unique } from './test/accounts';

const stack = testStack();
const ADMIN = { username: 'cacheadmin', password: 'cache-admin-password-1' };

interface Replica {
  url: string;
  metricsUrl: string;
}

/** A redis-server that writes every command to its append-only file, so a restart comes back with the generations. */
async function startDurableRedis(dir: string, port: number): Promise<ManagedProcess> {
  const binary = await ensureRedisServer();
  mkdirSync(dir, { recursive: true });
  const redis = startProcess(
    'redis',
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir],
    { stdio: 'ignore' },
  );
  await waitForPort(port, 15_000, () => redis.child.exitCode === null);
  return redis;
}

/** read_cache_lookups_total of one process, summed per result over the subgraphs. */
async function lookups(replica: Replica): Promise<Record<string, number>> {
  const response = await fetch(replica.metricsUrl);
  const totals: Record<string, number> = {};
  for (const sample of parsePrometheusText(await response.text())) {
    if (sample.name !== 'read_cache_lookups_total') continue;
    const result = sample.labels['result'] ?? '';
    totals[result] = (totals[result] ?? 0) + sample.value;
  }
  return totals;
}

describe('read cache across replicas sharing Redis', () => {
  const dir = makeTempDir('read-cache-');
  let redis: ManagedProcess;
  let redisPort: number;
  let system: RunningSystem;
  let embedded: ManagedProcess;
  let a: Replica;
  let b: Replica;
  let g: Replica;
  let adminToken: string;

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startDurableRedis(join(dir.path, 'redis'), redisPort);
    const databases = Object.fromEntries(
      (['users', 'items', 'auth', 'posts'] as const).map((name) => [name, { MONGO_DB: `read_cache_${name}` }]),
    );
    system = await startSystem({
      rootDir: stack.rootDir,
      mongoUrl: stack.mongoUrl,
      redisUrl: `redis://127.0.0.1:${redisPort}`,
      jwtSecret: stack.jwtSecret,
      freePorts: true,
      logDir: dir.path,
      env: {
        ...ownSystemEnv(join(dir.path, 'data'), ADMIN),
        // Long enough that no entry ages out during a test: freshness here comes from invalidation alone.
        READ_CACHE_TTL_MS: '600000',
        // Replica A goes through the gateway process (its cache); B, below, runs the default embedded executor.
        GATEWAY_MODE: 'remote',
      },
      envFor: databases,
    });
    const port = await freePort();
    const metricsPort = await freePort();
    embedded = startApp('rest', {
      rootDir: stack.rootDir,
      logDir: dir.path,
      logName: 'rest-embedded',
      env: {
        ...appEnvironment('rest', system.ports, system.env),
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        GATEWAY_MODE: 'embedded',
      },
    });
    await waitForHttpOk(`http://127.0.0.1:${port}/readyz`, 60_000, () => embedded.child.exitCode === null);
    a = { url: system.urls.rest, metricsUrl: system.metricsUrls.rest };
    b = { url: `http://127.0.0.1:${port}`, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
    g = { url: system.urls.gateway, metricsUrl: system.metricsUrls.gateway };
    adminToken = await login(ADMIN.username, ADMIN.password);
  }, 180_000);

  afterAll(async () => {
    await embedded?.stop('SIGTERM', 10_000);
    await system?.stop();
    await redis?.stop('SIGTERM', 10_000);
    dir.remove();
  }, 60_000);

  async function login(username: string, password: string, scope?: string): Promise<string> {
    const response = await http.post(`${a.url}/token`, { form: { username, password, ...(scope ? { scope } : {}) } });
    expect(response.status).toBe(200);
    return response.body.access_token as string;
  }

  async function register(): Promise<{ id: number; username: string; password: string; token: string }> {
    const username = `rc${unique()}`;
    const password = `pw-${unique()}-9`;
    const response = await http.post(`${a.url}/users/`, { json: { username, email: `${username}@example.com`, password } });
    expect(response.status).toBe(201);
    return { id: response.body.id as number, username, password, token: await login(username, password) };
  }

  const getUser = (replica: Replica, id: number, token: string, inactive = false) =>
    http.get(`${replica.url}/users/${id}${inactive ? '?include_inactive=true' : ''}`, { token });

  const graphqlUser = async (id: number, token: string, includeInactive = false) => {
    const response = await http.graphql(
      `${g.url}/graphql`,
      'query ReadCacheUser($id: ID!, $all: Boolean) { user(id: $id, includeInactive: $all) { id fullName isActive } }',
      { id: String(id), all: includeInactive },
      { token },
    );
    expect(response.body.errors).toBeUndefined();
    return response.body.data.user as { id: string; fullName: string | null; isActive: boolean } | null;
  };

  /** Reads twice through each path (the second one a hit), so every check after a write meets a cached entry. */
  async function warm(read: () => Promise<unknown>, replicas: Replica[]): Promise<void> {
    const before = await Promise.all(replicas.map(lookups));
    await read();
    await read();
    const after = await Promise.all(replicas.map(lookups));
    replicas.forEach((_, index) => expect(after[index]!['hit'] ?? 0).toBeGreaterThan(before[index]!['hit'] ?? 0));
  }

  it('when a user is changed, deactivated and deleted through one replica, then the next read through the other replica and through GraphQL sees each change', async () => {
    const member = await register();
    const readAll = async () => {
      await getUser(a, member.id, adminToken);
      await getUser(b, member.id, adminToken);
      await getUser(b, member.id, adminToken, true);
      await graphqlUser(member.id, adminToken);
      await graphqlUser(member.id, adminToken, true);
    };
    await warm(readAll, [b, g]);

    const patched = await http.patch(`${a.url}/users/${member.id}`, { token: member.token, json: { full_name: 'After Patch' } });
    expect(patched.status).toBe(200);
    expect((await getUser(b, member.id, adminToken)).body.full_name).toBe('After Patch');
    expect((await graphqlUser(member.id, adminToken))?.fullName).toBe('After Patch');

    await warm(readAll, [b, g]);
    const deactivated = await http.post(`${b.url}/users/${member.id}/deactivate`, { token: adminToken });
    expect(deactivated.status).toBe(200);
    expect((await getUser(a, member.id, adminToken)).status).toBe(404);
    expect((await getUser(b, member.id, adminToken, true)).body.is_active).toBe(false);
    expect(await graphqlUser(member.id, adminToken)).toBeNull();
    expect((await graphqlUser(member.id, adminToken, true))?.isActive).toBe(false);

    await warm(readAll, [b, g]);
    const deleted = await http.delete(`${a.url}/users/${member.id}`, { token: adminToken });
    expect(deleted.status).toBe(204);
    expect((await getUser(b, member.id, adminToken, true)).status).toBe(404);
    expect(await graphqlUser(member.id, adminToken, true)).toBeNull();
  });

  it('when an item is changed and deleted through one replica, then the next read through the other replica and through GraphQL sees it', async () => {
    const owner = await register();
    const created = await http.post(`${a.url}/items/`, { token: owner.token, json: { name: 'Lamp', price: 10 } });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const graphqlItem = async () => {
      const response = await http.graphql(
        `${g.url}/graphql`,
        'query ReadCacheItem($id: ID!) { item(id: $id) { id name price } }',
        { id: String(id) },
        { token: owner.token },
      );
      expect(response.body.errors).toBeUndefined();
      return response.body.data.item as { name: string; price: number } | null;
    };
    const readAll = async () => {
      await http.get(`${a.url}/items/${id}`, { token: owner.token });
      await http.get(`${b.url}/items/${id}`, { token: owner.token });
      await graphqlItem();
    };
    await warm(readAll, [b, g]);

    const patched = await http.patch(`${b.url}/items/${id}`, { token: owner.token, json: { price: 12.5 } });
    expect(patched.status).toBe(200);
    expect((await http.get(`${a.url}/items/${id}`, { token: owner.token })).body.price).toBe(12.5);
    expect((await graphqlItem())?.price).toBe(12.5);

    await warm(readAll, [b, g]);
    const deleted = await http.delete(`${a.url}/items/${id}`, { token: owner.token });
    expect(deleted.status).toBe(204);
    expect((await http.get(`${b.url}/items/${id}`, { token: owner.token })).status).toBe(404);
    expect(await graphqlItem()).toBeNull();
  });

  it("when an item is read with expand=owner through both replicas, then the reads hit the cache, and a change of the owner through one replica is seen by the next expanded read through the other", async () => {
    const owner = await register();
    const created = await http.post(`${a.url}/items/`, { token: owner.token, json: { name: 'Expanded lamp', price: 3 } });
    expect(created.status).toBe(201);
    const path = `/items/${created.body.id}?expand=owner&fields=name,owner.full_name`;
    const readAll = async () => {
      await http.get(`${a.url}${path}`, { token: adminToken });
      await http.get(`${b.url}${path}`, { token: adminToken });
    };
    // The remote facade's expanded operation runs on the gateway process (g), the embedded one's on b itself.
    await warm(readAll, [b, g]);
    const patched = await http.patch(`${a.url}/users/${owner.id}`, { token: owner.token, json: { full_name: 'Renamed Owner' } });
    expect(patched.status).toBe(200);
    const read = await http.get(`${b.url}${path}`, { token: adminToken });
    expect(read.body).toEqual({ id: created.body.id, name: 'Expanded lamp', owner: { id: owner.id, full_name: 'Renamed Owner' } });
  });

  it('when one writer and readers on both replicas and GraphQL race, then no read that starts after a write returned sees an older value', async () => {
    const owner = await register();
    const created = await http.post(`${a.url}/items/`, { token: owner.token, json: { name: 'Racer', price: 0 } });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const WRITES = 25;
    // The price of the last write whose answer came back: every read sent after that must see it or a later one.
    let returned = 0;
    let writing = true;
    const stale: string[] = [];
    let reads = 0;
    const readers = [
      async () => (await http.get(`${a.url}/items/${id}`, { token: owner.token })).body.price as number,
      async () => (await http.get(`${b.url}/items/${id}`, { token: owner.token })).body.price as number,
      async () =>
        (
          await http.graphql(`${g.url}/graphql`, 'query RaceItem($id: ID!) { item(id: $id) { price } }', { id: String(id) }, { token: owner.token })
        ).body.data.item.price as number,
    ].map((read, index) => async () => {
      while (writing) {
        const floor = returned;
        const price = await read();
        reads += 1;
        if (price < floor) stale.push(`reader ${index}: ${price} after ${floor} returned`);
      }
    });
    const writer = async () => {
      for (let price = 1; price <= WRITES; price += 1) {
        const patched = await http.patch(`${(price % 2 ? a : b).url}/items/${id}`, { token: owner.token, json: { price } });
        expect(patched.status).toBe(200);
        returned = price;
      }
      writing = false;
    };
    await Promise.all([writer(), ...readers.map((reader) => reader())]);
    expect(stale).toEqual([]);
    // The readers really overlapped the writes (several reads per write), and the caches were in use.
    expect(reads).toBeGreaterThan(WRITES);
    expect((await lookups(b))['hit'] ?? 0).toBeGreaterThan(0);
  });

  /** A GraphQL read through the gateway process (its read cache), failing on any error. */
  async function graphql<T>(query: string, variables: Record<string, unknown>, token: string): Promise<T> {
    const response = await http.graphql(`${g.url}/graphql`, query, variables, { token });
    expect(response.body.errors).toBeUndefined();
    return response.body.data as T;
  }

  const delta = (after: Record<string, number>, before: Record<string, number>, result: string) =>
    (after[result] ?? 0) - (before[result] ?? 0);

  it('when other users of the same subgraph are written, then cached reads of an untouched user keep hitting on both replicas and through GraphQL, while each written user is read fresh', async () => {
    const hot = await register();
    const others = [await register(), await register(), await register()];
    const readHot = async () => {
      expect((await getUser(b, hot.id, adminToken)).status).toBe(200);
      await graphqlUser(hot.id, adminToken);
    };
    await warm(readHot, [b, g]);
    // A first write of the subgraph after an entry's first fetch invalidates it once (it was kept under the subgraph's
    // `any` generation, its documents not known before the fetch); read again, it is kept under its own.
    expect((await http.patch(`${a.url}/users/${others[0]!.id}`, { token: others[0]!.token, json: { full_name: 'Settle' } })).status).toBe(200);
    await readHot();

    for (let round = 0; round < 6; round += 1) {
      const other = others[round % others.length]!;
      const name = `Other ${round}`;
      const patched = await http.patch(`${(round % 2 ? a : b).url}/users/${other.id}`, { token: other.token, json: { full_name: name } });
      expect(patched.status).toBe(200);
      // The untouched user: a hit on each replica, nothing fetched again.
      const before = await Promise.all([lookups(b), lookups(g)]);
      await readHot();
      const after = await Promise.all([lookups(b), lookups(g)]);
      for (const index of [0, 1]) {
        expect({
          hit: delta(after[index]!, before[index]!, 'hit'),
          fetched: delta(after[index]!, before[index]!, 'miss') + delta(after[index]!, before[index]!, 'stale_miss'),
        }).toEqual({ hit: 1, fetched: 0 });
      }
      // The written user, through the other replica and through GraphQL: the write is seen at once.
      expect((await getUser(round % 2 ? b : a, other.id, adminToken)).body.full_name).toBe(name);
      expect((await graphqlUser(other.id, adminToken))?.fullName).toBe(name);
    }
  });

  it("when a user, an owner's items or a post's likes change, then the entity representation, the listing and the derived count that hold them are read fresh", async () => {
    const owner = await register();
    const created = await http.post(`${a.url}/items/`, { token: owner.token, json: { name: 'Desk', price: 30 } });
    expect(created.status).toBe(201);
    const itemId = String(created.body.id);
    const post = await http.post(`${a.url}/posts`, { token: owner.token, json: { title: 'Liked', body: 'text' } });
    expect(post.status).toBe(201);
    const postId = String(post.body.id);

    // `_entities`: the item's owner is fetched from users by representation.
    const ownerName = async () =>
      (
        await graphql<{ item: { owner: { fullName: string | null } } }>(
          'query RcOwner($id: ID!) { item(id: $id) { owner { fullName } } }',
          { id: itemId },
          adminToken,
        )
      ).item.owner.fullName;
    // A listing of users (by a filter, not by id).
    const listedName = async () =>
      (
        await graphql<{ users: { nodes: Array<{ fullName: string | null }> } }>(
          'query RcListed($name: String!) { users(filter: { username: { eq: $name } }) { nodes { fullName } } }',
          { name: owner.username },
          adminToken,
        )
      ).users.nodes[0]?.fullName;
    // The owner's items: the items subgraph reads them by owner for the User representation.
    const ownedItems = async () =>
      (
        await graphql<{ user: { items: Array<{ name: string }> } }>(
          'query RcOwned($id: ID!) { user(id: $id) { items { name } } }',
          { id: String(owner.id) },
          adminToken,
        )
      ).user.items.map((item) => item.name);
    // A count derived from other documents (likes) than the post's own.
    const likeCount = async () =>
      (await graphql<{ post: { likeCount: number } }>('query RcLikes($id: ID!) { post(id: $id) { likeCount } }', { id: postId }, adminToken))
        .post.likeCount;

    const readAll = async () => {
      await ownerName();
      await listedName();
      await ownedItems();
      await likeCount();
    };
    await warm(readAll, [g]);
    // Other records of each subgraph written: the entries, kept at first under their subgraphs' `any` generations
    // (what they read was not known before their first fetch), are read again and kept under their own.
    const other = await register();
    expect((await http.patch(`${a.url}/users/${other.id}`, { token: other.token, json: { full_name: 'Other' } })).status).toBe(200);
    expect((await http.post(`${a.url}/items/`, { token: other.token, json: { name: 'Other', price: 1 } })).status).toBe(201);
    expect((await http.post(`${a.url}/posts`, { token: other.token, json: { title: 'Other', body: 'text' } })).status).toBe(201);
    await readAll();
    await warm(readAll, [g]);

    expect((await http.patch(`${b.url}/users/${owner.id}`, { token: owner.token, json: { full_name: 'Renamed Owner' } })).status).toBe(200);
    expect(await ownerName()).toBe('Renamed Owner');
    expect(await listedName()).toBe('Renamed Owner');

    expect((await http.post(`${b.url}/items/`, { token: owner.token, json: { name: 'Chair', price: 5 } })).status).toBe(201);
    expect(await ownedItems()).toEqual(['Desk', 'Chair']);

    expect((await http.post(`${b.url}/posts/${postId}/like`, { token: adminToken })).status).toBe(200);
    expect(await likeCount()).toBe(1);
  });

  it('when cached reads are served, then each request reads its credential\'s and its fetches\' generations in one Redis round trip', async () => {
    const owner = await register();
    const created = await http.post(`${a.url}/items/`, { token: owner.token, json: { name: 'Counted', price: 2 } });
    expect(created.status).toBe(201);
    const joined = () =>
      graphql('query RcCounted($id: ID!) { item(id: $id) { name owner { username } } }', { id: String(created.body.id) }, owner.token);
    const single = () => getUser(b, owner.id, owner.token);
    // Warmed until every entry is kept under its own generations and each request's reads are known (the hint).
    const other = await register();
    for (let round = 0; round < 3; round += 1) {
      await joined();
      await single();
    }
    expect((await http.patch(`${a.url}/users/${other.id}`, { token: other.token, json: { full_name: 'x' } })).status).toBe(200);
    expect((await http.post(`${a.url}/items/`, { token: other.token, json: { name: 'x', price: 1 } })).status).toBe(201);
    for (let round = 0; round < 3; round += 1) {
      await joined();
      await single();
    }

    // Every command Redis runs meanwhile: the generation reads are the scripts over `{rc}` keys (and, in a previous
    // release, GETs of `read-cache:generation:*`); rate limits and idempotency records have keys of their own.
    // No ready check: MONITOR's own connection would see its INFO echoed as a monitored line (ioredis' queue error).
    const monitor = new Redis(`redis://127.0.0.1:${redisPort}`, { enableReadyCheck: false });
    const reads: string[] = [];
    const watching = await monitor.monitor();
    watching.on('monitor', (_time: string, args: string[], source: string) => {
      // A script's own commands are reported too, from `lua`: one round trip is one command from a client.
      if (source.includes('lua')) return;
      // The events service bumps its own generations when the relays' pushes of the writes above arrive (paced, so
      // perhaps now): those name only `events` keys, and nothing read here does.
      const generations = args.filter((arg) => arg.startsWith('{rc}') || arg.startsWith('read-cache:generation:'));
      if (generations.length > 0 && !generations.every((key) => /^(\{rc\}[a-z]:|read-cache:generation:)events\b/.test(key)))
        reads.push(args[0] ?? '');
    });
    const before = await Promise.all([lookups(b), lookups(g)]);
    const REQUESTS = 5;
    for (let round = 0; round < REQUESTS; round += 1) {
      expect(((await joined()) as { item: unknown }).item).toMatchObject({ name: 'Counted', owner: { username: owner.username } });
      expect((await single()).status).toBe(200);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    watching.disconnect();
    monitor.disconnect();
    const after = await Promise.all([lookups(b), lookups(g)]);
    // Two fetches per GraphQL request (items, then users for the owner) and one per REST request, all hits ...
    expect(delta(after[1]!, before[1]!, 'hit')).toBe(REQUESTS * 2);
    expect(delta(after[0]!, before[0]!, 'hit')).toBe(REQUESTS);
    // ... and one read of generations per request, the token's account check included.
    expect(reads.length).toBe(REQUESTS * 2);
  });

  it('when callers with different identities or scopes read the same thing, then none gets the answer cached for another', async () => {
    const first = await register();
    const second = await register();
    // The same document, the same variables: only the caller differs.
    for (const replica of [a, b]) {
      for (let round = 0; round < 2; round += 1) {
        expect((await http.get(`${replica.url}/users/me`, { token: first.token })).body.id).toBe(first.id);
        expect((await http.get(`${replica.url}/users/me`, { token: second.token })).body.id).toBe(second.id);
      }
    }
    // Another user's e-mail needs users:read: a token narrowed to items:read gets the item, not its owner's e-mail.
    const created = await http.post(`${a.url}/items/`, { token: first.token, json: { name: 'Shelf', price: 3 } });
    expect(created.status).toBe(201);
    const narrowToken = await login(second.username, second.password, 'items:read');
    const ownerEmail = (token: string) =>
      http.graphql(
        `${g.url}/graphql`,
        'query ReadCacheOwner($id: ID!) { item(id: $id) { id owner { id email } } }',
        { id: String(created.body.id) },
        { token },
      );
    const before = await lookups(g);
    for (let round = 0; round < 2; round += 1) {
      expect((await ownerEmail(adminToken)).body.data.item.owner.email).toBe(`${first.username}@example.com`);
      const narrow = await ownerEmail(narrowToken);
      expect(narrow.body.data?.item?.owner?.email ?? null).toBeNull();
      expect(narrow.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    }
    expect((await lookups(g))['hit'] ?? 0).toBeGreaterThan(before['hit'] ?? 0);
  });

  it('when Redis stops, then reads stay fresh and writes succeed; when it is back with its data, then nothing cached before the outage serves', async () => {
    const member = await register();
    const read = (replica: Replica) => getUser(replica, member.id, adminToken);
    await warm(async () => {
      await read(a);
      await read(b);
      await graphqlUser(member.id, adminToken);
    }, [b, g]);

    await redis.stop('SIGTERM', 10_000);
    const during = await http.patch(`${a.url}/users/${member.id}`, { token: member.token, json: { full_name: 'During Outage' } });
    expect(during.status).toBe(200);
    for (const replica of [a, b]) {
      const response = await read(replica);
      expect(response.status).toBe(200);
      expect(response.body.full_name).toBe('During Outage');
    }
    expect((await graphqlUser(member.id, adminToken))?.fullName).toBe('During Outage');

    // Back with the generations of before the outage (the write above could not bump them): once the readers use Redis
    // again, nothing they cached before the outage may serve.
    redis = await startDurableRedis(join(dir.path, 'redis'), redisPort);
    const adminId = (await http.get(`${a.url}/users/me`, { token: adminToken })).body.id as number;
    for (const replica of [b, g]) {
      let cachedAgain = false;
      for (let attempt = 0; attempt < 200 && !cachedAgain; attempt += 1) {
        const before = await lookups(replica);
        if (replica === b) await getUser(b, adminId, adminToken);
        else await graphqlUser(adminId, adminToken);
        const after = await lookups(replica);
        const used = (totals: Record<string, number>) => (totals['hit'] ?? 0) + (totals['miss'] ?? 0) + (totals['stale_miss'] ?? 0);
        cachedAgain = used(after) > used(before);
        if (!cachedAgain) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(cachedAgain).toBe(true);
    }
    for (let round = 0; round < 2; round += 1) {
      for (const replica of [a, b]) expect((await read(replica)).body.full_name).toBe('During Outage');
      expect((await graphqlUser(member.id, adminToken))?.fullName).toBe('During Outage');
    }
  });

  it('when Redis is unreachable, then a revoked key and a deactivated user are refused on the next request through the other replica (every check asks), and nothing checked before serves after it is back', async () => {
    const member = await register();
    const created = await http.post(`${a.url}/api-keys`, { token: member.token, json: { name: 'outage', scopes: ['items:read'] } });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    const useKey = (replica: Replica) => http.get(`${replica.url}/items/`, { headers: { 'x-api-key': key } });
    const me = (replica: Replica) => http.get(`${replica.url}/users/me`, { token: member.token });
    for (let round = 0; round < 3; round += 1) {
      expect((await useKey(b)).status).toBe(200);
      expect((await me(b)).status).toBe(200);
    }

    await redis.stop('SIGTERM', 10_000);
    try {
      expect((await http.delete(`${a.url}/api-keys/${created.body.id}`, { token: member.token })).status).toBe(204);
      expect((await useKey(b)).status).toBe(401);
      expect((await http.post(`${a.url}/users/${member.id}/deactivate`, { token: adminToken })).status).toBe(200);
      expect((await me(b)).status).toBe(401);
      expect((await http.graphql(`${g.url}/graphql`, 'query RcMe { me { id } }', {}, { token: member.token })).status).toBe(401);
    } finally {
      redis = await startDurableRedis(join(dir.path, 'redis'), redisPort);
    }
    // Back with the generations of before (the revocation and the deactivation could not bump theirs): still refused.
    for (let round = 0; round < 3; round += 1) {
      expect((await useKey(b)).status).toBe(401);
      expect((await me(b)).status).toBe(401);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
