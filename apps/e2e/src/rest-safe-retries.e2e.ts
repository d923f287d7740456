/**
 * Issue 18 deliverables 1-3 over the real stack (FerretDB, Redis, gateway, subgraphs): Idempotency-Key replays on POST,
 * ETag / If-None-Match / If-Match with optimistic concurrency that holds under concurrent writers, and RFC 8288 Link
 * headers that walk listings end to end. ADR 0012.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, startRedis, type RunningInfra } from '@platform/dev-stack';
import { http, startWebhookReceiver, suiteApps, type ExtraApp, type HttpResponse } from '@platform/testing';
import { adminToken, login, member, rest, stack, unique, type Member } from './test/resources-support';
import { registerAccount } from './test/accounts';
import { waitFor } from './test/events-support';

jest.setTimeout(120_000);

let alice: Member;
let bob: Member;

beforeAll(async () => {
  alice = await member('idema');
  bob = await member('idemb');
});

const createItem = (token: string, json: unknown, key?: string) =>
  http.post(rest('/items/'), {
    token,
    json,
    ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }),
  });

const itemsNamed = async (token: string, name: string) =>
  (await http.get(rest(`/items/?name=${encodeURIComponent(name)}&limit=1000`), { token })).body as unknown[];

/** Follows `rel="next"` links from `path` to the end; returns every page's records and the number of pages. */
type Records = (body: Record<string, unknown> | Array<{ id: number }>) => Array<{ id: number }>;
const field =
  (name: string): Records =>
  (body) =>
    (body as Record<string, Array<{ id: number }>>)[name]!;
const asArray: Records = (body) => body as Array<{ id: number }>;

async function walk(path: string, token: string, records: Records) {
  const seen: number[] = [];
  let next: string | undefined = path;
  let pages = 0;
  while (next) {
    const page: HttpResponse = await http.get(rest(next), { token });
    expect(page.status).toBe(200);
    seen.push(...records(page.body).map((record) => record.id));
    pages += 1;
    expect(pages).toBeLessThan(200);
    const link: string = page.headers.get('link') ?? '';
    expect(link).toMatch(/rel="first"/);
    next = /<([^>]+)>; rel="next"/.exec(link)?.[1];
  }
  return { seen, pages };
}

describe('Idempotency-Key on POST', () => {
  it('when a create is retried with the same key and body, then the first response is replayed and one record exists', async () => {
    const key = `create-${unique()}`;
    const name = `idem-${unique()}`;
    const first = await createItem(alice.token, { name, price: 3 }, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retry = await createItem(alice.token, { name, price: 3 }, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(await itemsNamed(alice.token, name)).toHaveLength(1);
    // The key belongs to its caller: another user with the same key creates their own record.
    const other = await createItem(bob.token, { name, price: 3 }, key);
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(other.body.id).not.toBe(first.body.id);
  });

  it('when the same key comes with a different body, then 422 and nothing is created', async () => {
    const key = `mismatch-${unique()}`;
    const name = `idem-${unique()}`;
    expect((await createItem(alice.token, { name, price: 1 }, key)).status).toBe(201);
    const reused = await createItem(alice.token, { name, price: 2 }, key);
    expect(reused.status).toBe(422);
    expect(JSON.stringify(reused.body)).toMatch(/Idempotency-Key/);
    expect(await itemsNamed(alice.token, name)).toHaveLength(1);
  });

  it('when ten identical requests with one key arrive at once, then one record is created and the others are replays or 409 (in progress)', async () => {
    const key = `burst-${unique()}`;
    const name = `idem-${unique()}`;
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => createItem(alice.token, { name, price: 5 }, key)),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(
      responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null),
    ).toHaveLength(1);
    for (const conflict of responses.filter((r) => r.status === 409))
      expect(conflict.headers.get('retry-after')).toBe('1');
    expect(await itemsNamed(alice.token, name)).toHaveLength(1);
  });

  it('when a 4xx outcome is retried, then it is replayed; a key on an action (like) replays its outcome too', async () => {
    const key = `missing-${unique()}`;
    const comment = () =>
      http.post(rest('/posts/999999999999/comments'), {
        token: alice.token,
        json: { body: 'On nothing' },
        headers: { 'idempotency-key': key },
      });
    const first = await comment();
    expect(first.status).toBe(404);
    const again = await comment();
    expect(again.status).toBe(404);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);

    const post = await http.post(rest('/posts'), {
      token: alice.token,
      json: { title: 'Idem', body: 'Like me' },
    });
    const likeKey = `like-${unique()}`;
    const like = () =>
      http.post(rest(`/posts/${post.body.id}/like`), {
        token: bob.token,
        headers: { 'idempotency-key': likeKey },
      });
    const liked = await like();
    const replayed = await like();
    expect(replayed.status).toBe(liked.status);
    expect(replayed.text).toBe(liked.text);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  });

  it('when an account action with a key meets a stale If-Match (412), then nothing is kept: the retry with the fresh tag and the same key runs', async () => {
    const admin = await adminToken();
    const target = await member('idemact');
    const url = rest(`/users/${target.id}`);
    const stale = (await http.get(url, { token: admin })).headers.get('etag')!;
    expect((await http.patch(url, { token: admin, json: { full_name: 'Moved On' } })).status).toBe(200);
    const key = `action-${unique()}`;
    const deactivate = (etag: string) =>
      http.post(rest(`/users/${target.id}/deactivate`), {
        token: admin,
        headers: { 'idempotency-key': key, 'if-match': etag },
      });
    expect((await deactivate(stale)).status).toBe(412);
    const fresh = (await http.get(url, { token: admin })).headers.get('etag')!;
    const retried = await deactivate(fresh);
    expect([retried.status, retried.headers.get('idempotent-replayed'), retried.body.is_active]).toEqual([
      200,
      null,
      false,
    ]);
  });

  it('when a route that reads no body gets a keyed POST with a body nested 10,000 deep, then it is a client error and nothing is liked (no 500)', async () => {
    const post = await http.post(rest('/posts'), {
      token: alice.token,
      json: { title: 'Deep', body: 'Nest' },
    });
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const liked = await http.post(rest(`/posts/${post.body.id}/like`), {
      token: bob.token,
      body: deep,
      headers: { 'idempotency-key': `deep-${unique()}`, 'content-type': 'application/json' },
    });
    // Every JSON body is held to the request limits' depth before any route reads it (docs/interface.md).
    expect(liked.status).toBe(400);
    expect(JSON.stringify(liked.body)).toContain('nests deeper than');
    const read = await http.get(rest(`/posts/${post.body.id}`), { token: bob.token });
    expect(read.body.like_count).toBe(0);
  });

  it('when a request is refused for its credential (403 without the scope, 401), then nothing is kept: the retry with a fitting token runs', async () => {
    const account = await registerAccount(stack.restUrl, 'idemscope');
    const narrow = await login(account.username, account.password, 'items:read');
    const key = `scope-${unique()}`;
    const json = { name: `idem-${unique()}`, price: 1 };
    const refused = await http.post(rest('/items/'), {
      token: narrow,
      json,
      headers: { 'idempotency-key': key },
    });
    expect(refused.status).toBe(403);
    const full = await login(account.username, account.password);
    const retried = await http.post(rest('/items/'), {
      token: full,
      json,
      headers: { 'idempotency-key': key },
    });
    expect([retried.status, retried.headers.get('idempotent-replayed')]).toEqual([201, null]);
    // A forged token's 401, retried: refused afresh each time, never replayed.
    const forged = `${full.slice(0, -4)}AAAA`;
    const forgedKey = `forged-${unique()}`;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const response = await http.post(rest('/items/'), {
        token: forged,
        json,
        headers: { 'idempotency-key': forgedKey },
      });
      expect([response.status, response.headers.get('idempotent-replayed')]).toEqual([401, null]);
    }
  });

  it('when a retry sends the same JSON members in another order, then it is the same request (replayed, not 422)', async () => {
    const key = `order-${unique()}`;
    const name = `idem-${unique()}`;
    const send = (body: string) =>
      http.post(rest('/items/'), {
        token: alice.token,
        body,
        headers: { 'idempotency-key': key, 'content-type': 'application/json' },
      });
    expect((await send(`{"name":"${name}","price":4}`)).status).toBe(201);
    const retried = await send(`{"price":4,"name":"${name}"}`);
    expect([retried.status, retried.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(await itemsNamed(alice.token, name)).toHaveLength(1);
  });

  it('when a retry asks for another representation (API version, problem details), then it is another request: 422', async () => {
    const key = `version-${unique()}`;
    const json = { name: `idem-${unique()}`, price: 4 };
    const v1 = await http.post(rest('/items/'), {
      token: alice.token,
      json,
      headers: { 'idempotency-key': key, 'x-api-version': '1' },
    });
    expect(v1.status).toBe(201);
    const v2 = await http.post(rest('/items/'), {
      token: alice.token,
      json,
      headers: { 'idempotency-key': key, 'x-api-version': '2' },
    });
    expect(v2.status).toBe(422);
    const problemKey = `problem-${unique()}`;
    const onMissing = (accept: string) =>
      http.post(rest('/posts/999999999999/comments'), {
        token: alice.token,
        json: { body: 'x' },
        headers: { 'idempotency-key': problemKey, accept },
      });
    expect((await onMissing('application/problem+json')).status).toBe(404);
    const plain = await onMissing('application/json');
    expect([plain.status, plain.headers.get('content-type')]).toEqual([
      422,
      'application/json; charset=utf-8',
    ]);
  });

  it('when an API key is created with a key and retried, then the replay is not cacheable either, and Redis holds neither the secret nor a digest of a registration body', async () => {
    const redis = new Redis(stack.redisUrl);
    try {
      const key = `apikey-${unique()}`;
      const body = { name: `k${unique()}`, scopes: ['items:read'] };
      const first = await http.post(rest('/api-keys'), {
        token: alice.token,
        json: body,
        headers: { 'idempotency-key': key },
      });
      expect(first.status).toBe(201);
      const replay = await http.post(rest('/api-keys'), {
        token: alice.token,
        json: body,
        headers: { 'idempotency-key': key },
      });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.key).toBe(first.body.key);
      expect(replay.headers.get('cache-control')).toBe('no-store');
      const username = `idemreg${unique()}`;
      const account = { username, email: `${username}@example.com`, password: `pw-${unique()}-9` };
      expect(
        (await http.post(rest('/users/'), { json: account, headers: { 'idempotency-key': key } })).status,
      ).toBe(201);
      // What the earlier code kept: the outcome in clear, and an unkeyed SHA-256 of the request (a password to guess).
      const guessable = createHash('sha256')
        .update(JSON.stringify(['POST', '/users/', account]))
        .digest('base64url');
      const stored = await Promise.all(
        (await redis.keys('idem:*')).map(async (name) => (await redis.get(name)) ?? ''),
      );
      expect(stored.length).toBeGreaterThan(0);
      expect(stored.filter((value) => value.includes(guessable))).toEqual([]);
      for (const value of stored) {
        // The earlier code kept the outcome's body as base64: decode whatever an entry holds before looking.
        const entry = JSON.parse(value) as { sealed?: string; response?: { body: string } };
        const body = Buffer.from(entry.sealed ?? entry.response?.body ?? '', 'base64').toString('utf8');
        expect(`${value}\n${body}`).not.toContain(first.body.key);
      }
    } finally {
      redis.disconnect();
    }
  });

  it('when a webhook is created, re-keyed, pinged or redelivered with a key and retried, then each retry replays the first answer (one webhook, one rotation, one ping) and Redis holds no secret in clear', async () => {
    const receiver = await startWebhookReceiver({ tls: stack.webhookTls });
    const redis = new Redis(stack.redisUrl);
    try {
      const twice = async (path: string, json?: unknown) => {
        const key = `webhook-${unique()}`;
        const send = () =>
          http.post(rest(path), {
            token: alice.token,
            headers: { 'idempotency-key': key },
            ...(json ? { json } : {}),
          });
        const first = await send();
        const retry = await send();
        expect(first.headers.get('idempotent-replayed')).toBeNull();
        const answer = (r: HttpResponse) => ({
          status: r.status,
          body: r.body,
          location: r.headers.get('location'),
        });
        expect({ ...answer(retry), replayed: retry.headers.get('idempotent-replayed') }).toEqual({
          ...answer(first),
          replayed: 'true',
        });
        return first;
      };
      const created = await twice('/webhooks', { url: receiver.url, event_types: ['item.deleted'] });
      expect(created.status).toBe(201);
      const id = created.body.id as number;
      const mine = (await http.get(rest('/webhooks'), { token: alice.token })).body as Array<{
        id: number;
        url: string;
      }>;
      expect(mine.filter((webhook) => webhook.url === receiver.url).map((webhook) => webhook.id)).toEqual([
        id,
      ]);

      const rotated = await twice(`/webhooks/${id}/rotate-secret`, { overlap_seconds: 3_600 });
      expect(rotated.status).toBe(200);
      const ping = await twice(`/webhooks/${id}/ping`);
      expect(ping.status).toBe(202);
      const delivered = await waitFor(async () => {
        const log = await http.get(rest(`/webhooks/${id}/deliveries`), { token: alice.token });
        return log.body.data?.[0]?.status === 'delivered'
          ? (log.body.data as Array<{ id: string }>)
          : undefined;
      });
      expect(delivered.map((delivery) => delivery.id)).toEqual([ping.body.id]);
      // One rotation: the first secret still signs beside the new one (a second rotation would have ended it).
      const [message] = receiver.received;
      expect(receiver.verify(message!, rotated.body.secret as string)).toMatchObject({
        type: 'webhook.ping',
      });
      expect(receiver.verify(message!, created.body.secret as string)).toMatchObject({
        type: 'webhook.ping',
      });
      expect((await twice(`/webhooks/${id}/deliveries/${ping.body.id}/redeliver`)).status).toBe(202);

      for (const name of await redis.keys('idem:*')) {
        const value = (await redis.get(name)) ?? '';
        for (const secret of [created.body.secret, rotated.body.secret] as string[]) {
          expect(value).not.toContain(secret);
          expect(value).not.toContain(Buffer.from(secret).toString('base64'));
        }
      }
    } finally {
      redis.disconnect();
      await receiver.close();
    }
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a tab (not printable)', 'a\tb'],
  ])('when the key is %s, then 422 naming the header and nothing is created', async (_label, key) => {
    const name = `idem-${unique()}`;
    const response = await createItem(alice.token, { name, price: 1 }, key);
    expect(response.status).toBe(422);
    expect(JSON.stringify(response.body)).toMatch(/Idempotency-Key/);
    expect(await itemsNamed(alice.token, name)).toHaveLength(0);
  });

  it('when a login (POST /token) carries a key, then it runs each time and nothing is stored (credentials never sit in Redis)', async () => {
    const response = await http.post(rest('/token'), {
      form: { username: alice.username, password: 'wrong-password-1' },
      headers: { 'idempotency-key': `token-${unique()}` },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('idempotency-status')).toBe('not-stored');
  });
});

describe('Idempotency-Key while Redis is unreachable', () => {
  const apps = suiteApps('idempotency-redis-');
  let open: ExtraApp;
  let closed: ExtraApp;

  beforeAll(async () => {
    const nothingListens = `redis://127.0.0.1:${await freePort()}`;
    open = await apps.start('rest', { REDIS_URL: nothingListens, IDEMPOTENCY_FAIL_MODE: 'open' });
    closed = await apps.start('rest', {
      REDIS_URL: nothingListens,
      IDEMPOTENCY_FAIL_MODE: 'closed',
      RATE_LIMIT_FAIL_MODE: 'open',
    });
  }, 60_000);

  it('when IDEMPOTENCY_FAIL_MODE=open, then the POST runs and says it had no guarantee; closed: 503 + Retry-After and nothing created', async () => {
    const name = `idem-${unique()}`;
    const ran = await http.post(`${open.url}/items/`, {
      token: alice.token,
      json: { name, price: 1 },
      headers: { 'idempotency-key': `down-${unique()}` },
    });
    expect(ran.status).toBe(201);
    expect(ran.headers.get('idempotency-status')).toBe('unavailable');

    const refusedName = `idem-${unique()}`;
    const refused = await http.post(`${closed.url}/items/`, {
      token: alice.token,
      json: { name: refusedName, price: 1 },
      headers: { 'idempotency-key': `down-${unique()}` },
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.text).not.toMatch(/ECONNREFUSED|Redis|stack/i);
    expect(await itemsNamed(alice.token, refusedName)).toHaveLength(0);
  });
});

describe('Idempotency-Key while Redis is slow', () => {
  const apps = suiteApps('idempotency-slow-redis-');
  let redis: RunningInfra;
  let facade: ExtraApp;

  beforeAll(async () => {
    redis = await startRedis({ dataDir: join(apps.dir.path, 'redis') });
    apps.track(redis);
    facade = await apps.start('rest', {
      REDIS_URL: redis.url,
      IDEMPOTENCY_FAIL_MODE: 'open',
      RATE_LIMIT_FAIL_MODE: 'open',
    });
  }, 60_000);

  it('when Redis stalls for 300 ms while five identical requests with one key arrive, then they wait for the claim: one record, the others 409', async () => {
    const key = `slow-${unique()}`;
    const name = `idem-${unique()}`;
    // Redis answers nothing for 300 ms (a loaded host, a fork for a snapshot): longer than REDIS_COMMAND_TIMEOUT_MS
    // (80 ms, the rate limiter's budget) but far from down. The claims must wait for it, not run unguarded.
    redis.process.child.kill('SIGSTOP');
    let responses: HttpResponse[];
    try {
      const sent = Promise.all(
        Array.from({ length: 5 }, () =>
          http.post(`${facade.url}/items/`, {
            token: alice.token,
            json: { name, price: 5 },
            headers: { 'idempotency-key': key },
          }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      redis.process.child.kill('SIGCONT');
      responses = await sent;
    } finally {
      // Resumed whatever happens, so the suite's teardown can stop it.
      redis.process.child.kill('SIGCONT');
    }
    expect(responses.map((r) => r.headers.get('idempotency-status'))).toEqual(Array(5).fill(null));
    expect(
      responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null),
    ).toHaveLength(1);
    expect(responses.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    expect(await itemsNamed(alice.token, name)).toHaveLength(1);
  });
});

describe('conditional requests', () => {
  it('when an item is unchanged, then If-None-Match gives 304 with the ETag and no body; after a change, 200 with a new strong ETag', async () => {
    const created = await createItem(alice.token, { name: `etag-${unique()}`, price: 1 });
    const read = await http.get(rest(`/items/${created.body.id}`), { token: alice.token });
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(/^"\d+\.r\d+"$/);
    const again = await http.get(rest(`/items/${created.body.id}`), {
      token: alice.token,
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    // v1 and v2 bodies of one record never share a tag.
    const v1 = await http.get(rest(`/v1/items/${created.body.id}`), { token: alice.token });
    expect(v1.headers.get('etag')).not.toBe(etag);

    const patched = await http.patch(rest(`/items/${created.body.id}`), {
      token: alice.token,
      json: { price: 2 },
    });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).not.toBe(etag);
    const changed = await http.get(rest(`/items/${created.body.id}`), {
      token: alice.token,
      headers: { 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.price).toBe(2);
    expect(changed.headers.get('etag')).toBe(patched.headers.get('etag'));
  });

  it('when a listing is unchanged, then its weak ETag revalidates to 304', async () => {
    const first = await http.get(rest(`/items/?owner_id=${alice.id}&limit=5`), { token: alice.token });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    const again = await http.get(rest(`/items/?owner_id=${alice.id}&limit=5`), {
      token: alice.token,
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
  });

  it('when a PATCH or DELETE carries a stale If-Match, then 412 and the record keeps the other change', async () => {
    const created = await createItem(alice.token, { name: `stale-${unique()}`, price: 1 });
    const url = rest(`/items/${created.body.id}`);
    const stale = (await http.get(url, { token: alice.token })).headers.get('etag')!;
    const fresh = await http.patch(url, {
      token: alice.token,
      json: { price: 7 },
      headers: { 'if-match': stale },
    });
    expect(fresh.status).toBe(200);
    const lost = await http.patch(url, {
      token: alice.token,
      json: { price: 9 },
      headers: { 'if-match': stale },
    });
    expect(lost.status).toBe(412);
    const deleted = await http.delete(url, { token: alice.token, headers: { 'if-match': stale } });
    expect(deleted.status).toBe(412);
    const kept = await http.get(url, { token: alice.token });
    expect(kept.status).toBe(200);
    expect(kept.body.price).toBe(7);
    expect(
      (await http.delete(url, { token: alice.token, headers: { 'if-match': fresh.headers.get('etag')! } }))
        .status,
    ).toBe(204);
  });

  it('when 20 PATCHes with the same If-Match race, then exactly one is 200 and nineteen are 412, round after round (FerretDB)', async () => {
    const created = await createItem(alice.token, { name: `race-${unique()}`, price: 1 });
    const url = rest(`/items/${created.body.id}`);
    for (let round = 0; round < 5; round += 1) {
      const etag = (await http.get(url, { token: alice.token })).headers.get('etag')!;
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          http.patch(url, {
            token: alice.token,
            json: { price: round * 100 + i },
            headers: { 'if-match': etag },
          }),
        ),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([200, ...Array(19).fill(412)]);
      const winner = responses.find((r) => r.status === 200)!;
      const after = await http.get(url, { token: alice.token });
      expect(after.body.price).toBe(winner.body.price);
      expect(after.headers.get('etag')).toBe(winner.headers.get('etag'));
    }
  });

  it('when a write says If-None-Match: * (only if there is none), then 412 for an existing item and 404 for a missing one; nothing changes', async () => {
    const created = await createItem(alice.token, { name: `idem-${unique()}`, price: 3 });
    const url = rest(`/items/${created.body.id}`);
    const onlyIfAbsent = { 'if-none-match': '*' };
    for (const write of [
      () =>
        http.put(url, { token: alice.token, json: { name: 'replaced', price: 9 }, headers: onlyIfAbsent }),
      () => http.patch(url, { token: alice.token, json: { price: 9 }, headers: onlyIfAbsent }),
      () => http.delete(url, { token: alice.token, headers: onlyIfAbsent }),
    ])
      expect((await write()).status).toBe(412);
    expect((await http.get(url, { token: alice.token })).body).toEqual(created.body);
    const missing = await http.patch(rest('/items/999999999999'), {
      token: alice.token,
      json: { price: 9 },
      headers: onlyIfAbsent,
    });
    expect(missing.status).toBe(404);
    // "Unless it is at version n" cannot be checked in the write's one step: refused, not ignored.
    const unless = await http.patch(url, {
      token: alice.token,
      json: { price: 9 },
      headers: { 'if-none-match': created.headers.get('etag')! },
    });
    expect(unless.status).toBe(400);
  });

  it('when If-Match carries a tag this server never issues (an API version it does not serve, a foreign segment), then 412', async () => {
    const created = await createItem(alice.token, { name: `idem-${unique()}`, price: 3 });
    const etag = created.headers.get('etag')!;
    const version = /^"(\d+)\./.exec(etag)![1];
    for (const forged of [`"${version}.r7"`, `"${version}.x5.r2"`]) {
      const response = await http.patch(rest(`/items/${created.body.id}`), {
        token: alice.token,
        json: { price: 7 },
        headers: { 'if-match': forged },
      });
      expect({ forged, status: response.status }).toEqual({ forged, status: 412 });
    }
  });

  it('when unconditional PATCHes race a conditional one, then no conditional write is lost: it wins first or gets 412', async () => {
    const created = await createItem(alice.token, { name: `mixed-${unique()}`, price: 1 });
    const url = rest(`/items/${created.body.id}`);
    const etag = (await http.get(url, { token: alice.token })).headers.get('etag')!;
    const [conditional, ...plain] = await Promise.all([
      http.patch(url, {
        token: alice.token,
        json: { description: 'conditional' },
        headers: { 'if-match': etag },
      }),
      ...Array.from({ length: 8 }, (_, i) =>
        http.patch(url, { token: alice.token, json: { price: 10 + i } }),
      ),
    ]);
    expect(plain.every((r) => r.status === 200)).toBe(true);
    // Every write took its own version: nine writes (or eight when the conditional one lost) after version 0.
    const versions = plain.map((r) => Number(/^"(\d+)\./.exec(r.headers.get('etag')!)![1]));
    expect(new Set(versions).size).toBe(versions.length);
    const final = await http.get(url, { token: alice.token });
    const finalVersion = Number(/^"(\d+)\./.exec(final.headers.get('etag')!)![1]);
    expect(finalVersion).toBe(conditional!.status === 200 ? 9 : 8);
    if (conditional!.status !== 200) expect(conditional!.status).toBe(412);
  });
});

describe('Link headers', () => {
  let owner: Member;
  let postId: number;
  const ITEMS = 23;
  const COMMENTS = 11;

  beforeAll(async () => {
    owner = await member('links');
    for (let i = 0; i < ITEMS; i += 1) await createItem(owner.token, { name: `link-${i}`, price: i });
    postId = (
      await http.post(rest('/posts'), { token: owner.token, json: { title: 'Links', body: 'Walk me' } })
    ).body.id;
    for (let i = 0; i < COMMENTS; i += 1)
      await http.post(rest(`/posts/${postId}/comments`), { token: owner.token, json: { body: `c${i}` } });
  });

  const everyOnce = (seen: number[], count: number) => {
    expect(seen).toHaveLength(count);
    expect(new Set(seen).size).toBe(count);
  };

  it.each([
    ['cursor', `pageSize=5&sort=-price`, field('data')],
    ['page/size', `page=1&size=4&sort=name`, field('items')],
    ['offset/limit', `limit=6`, asArray],
    ['keyset', `lastSeenId=0&limit=7`, asArray],
  ])(
    'when the items listing (%s) is walked by its next links, then every record comes once',
    async (_style, query, records) => {
      const { seen, pages } = await walk(`/items/?owner_id=${owner.id}&${query}`, owner.token, records);
      everyOnce(seen, ITEMS);
      expect(pages).toBeGreaterThan(3);
    },
  );

  it("when a nested listing (a post's comments) is walked by cursor and by page, then every comment comes once", async () => {
    everyOnce(
      (await walk(`/posts/${postId}/comments?pageSize=3`, owner.token, field('data'))).seen,
      COMMENTS,
    );
    everyOnce(
      (await walk(`/posts/${postId}/comments?page=1&size=4`, owner.token, field('items'))).seen,
      COMMENTS,
    );
  });

  it('when a middle page is read, then first, prev and next agree with the body', async () => {
    const page = await http.get(rest(`/items/?owner_id=${owner.id}&page=2&size=5`), { token: owner.token });
    const link = page.headers.get('link')!;
    expect(link).toContain(`page=1&size=5>; rel="first"`);
    expect(link).toContain(`page=1&size=5>; rel="prev"`);
    expect(link).toContain(`page=3&size=5>; rel="next"`);
    const cursor = await http.get(rest(`/items/?owner_id=${owner.id}&pageSize=5`), { token: owner.token });
    expect(cursor.headers.get('link')).toContain(
      `pageToken=${encodeURIComponent(cursor.body.pagination.nextPageToken)}`,
    );
    const last = await http.get(rest(`/items/?owner_id=${owner.id}&page=5&size=5`), { token: owner.token });
    expect(last.headers.get('link')).not.toMatch(/rel="next"/);
  });
});

describe('conditional requests on posts and comments', () => {
  const createPost = async (token: string) =>
    (await http.post(rest('/posts'), { token, json: { title: `If-Match ${unique()}`, body: 'Original' } }))
      .body.id as number;
  const createComment = async (token: string, postId: number) =>
    (await http.post(rest(`/posts/${postId}/comments`), { token, json: { body: 'Original' } })).body
      .id as number;

  // Each case: the record's URL, a PATCH body, and what a read shows of it.
  const cases: Array<[string, () => Promise<string>, (i: number) => Record<string, unknown>]> = [
    ['a post', async () => `/posts/${await createPost(alice.token)}`, (i) => ({ title: `Title ${i}` })],
    [
      'a comment',
      async () => {
        const postId = await createPost(alice.token);
        return `/posts/${postId}/comments/${await createComment(alice.token, postId)}`;
      },
      (i) => ({ body: `Body ${i}` }),
    ],
  ];

  it.each(cases)(
    'when 20 PATCHes of %s carry the same If-Match, then exactly one is 200 and nineteen are 412, and the winner is what is stored',
    async (_what, create, change) => {
      const url = rest(await create());
      for (let round = 0; round < 2; round += 1) {
        const etag = (await http.get(url, { token: alice.token })).headers.get('etag')!;
        expect(etag).toMatch(/^"\d+\.(l\d+\.)?r\d+"$/);
        const responses = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            http.patch(url, {
              token: alice.token,
              json: change(round * 100 + i),
              headers: { 'if-match': etag },
            }),
          ),
        );
        expect(responses.map((r) => r.status).sort()).toEqual([200, ...Array(19).fill(412)]);
        const winner = responses.find((r) => r.status === 200)!;
        const after = await http.get(url, { token: alice.token });
        expect(after.body).toEqual(winner.body);
        expect(after.headers.get('etag')).toBe(winner.headers.get('etag'));
        expect(after.headers.get('etag')).not.toBe(etag);
      }
    },
  );

  it.each(cases)(
    'when %s is read twice unchanged, then If-None-Match gives 304; a stale If-Match on PUT, PATCH or DELETE is 412 and changes nothing',
    async (what, create, change) => {
      const url = rest(await create());
      const first = await http.get(url, { token: alice.token });
      const stale = first.headers.get('etag')!;
      const unchanged = await http.get(url, { token: alice.token, headers: { 'if-none-match': stale } });
      expect(unchanged.status).toBe(304);
      expect(unchanged.headers.get('etag')).toBe(stale);

      const fresh = await http.patch(url, {
        token: alice.token,
        json: change(1),
        headers: { 'if-match': stale },
      });
      expect(fresh.status).toBe(200);
      expect(fresh.headers.get('etag')).not.toBe(stale);
      const written = (await http.get(url, { token: alice.token })).body;

      expect(
        (await http.patch(url, { token: alice.token, json: change(2), headers: { 'if-match': stale } }))
          .status,
      ).toBe(412);
      if (what === 'a post') {
        const replaced = await http.put(url, {
          token: alice.token,
          json: { title: 'Replaced', body: 'Replaced' },
          headers: { 'if-match': stale },
        });
        expect(replaced.status).toBe(412);
      }
      expect((await http.delete(url, { token: alice.token, headers: { 'if-match': stale } })).status).toBe(
        412,
      );
      const kept = await http.get(url, { token: alice.token });
      expect(kept.status).toBe(200);
      expect(kept.body).toEqual(written);
      expect(kept.headers.get('etag')).toBe(fresh.headers.get('etag'));

      const deleted = await http.delete(url, {
        token: alice.token,
        headers: { 'if-match': fresh.headers.get('etag')! },
      });
      expect(deleted.status).toBe(204);
      expect((await http.get(url, { token: alice.token })).status).toBe(404);
    },
  );

  it("when a post's DELETE carries a stale If-Match, then its comments and likes stay too (the cascade waits for the claim)", async () => {
    const postId = await createPost(alice.token);
    const url = rest(`/posts/${postId}`);
    const stale = (await http.get(url, { token: alice.token })).headers.get('etag')!;
    await createComment(bob.token, postId);
    expect((await http.post(rest(`/posts/${postId}/like`), { token: bob.token })).status).toBe(200);
    expect((await http.patch(url, { token: alice.token, json: { body: 'Edited' } })).status).toBe(200);
    expect((await http.delete(url, { token: alice.token, headers: { 'if-match': stale } })).status).toBe(412);
    const post = await http.get(url, { token: alice.token });
    expect(post.body.like_count).toBe(1);
    expect((await http.get(rest(`/posts/${postId}/comments`), { token: alice.token })).body).toHaveLength(1);
    // A like moves the tag (the body's like_count changed) but is not an edit: If-Match still names the post's version.
    const liked = post.headers.get('etag')!;
    expect((await http.delete(rest(`/posts/${postId}/like`), { token: bob.token })).status).toBe(204);
    const unliked = await http.get(url, { token: alice.token, headers: { 'if-none-match': liked } });
    expect(unliked.status).toBe(200);
    expect(unliked.headers.get('etag')).not.toBe(liked);
    expect((await http.delete(url, { token: alice.token, headers: { 'if-match': liked } })).status).toBe(204);
  });
});
