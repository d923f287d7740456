/**
 * Credentials with no grace window (docs/decisions/0019-entity-generations.md), over the shared stack and a second
 * facade replica sharing its Redis, and a gateway process of this file's own: a revoked API key, a deactivated user and
 * a password reset are refused on the next request through every process; an `Idempotency-Key` replay goes only to the
 * account that made the request and only while its credential may still make it; and each process verifies a request's
 * credential once (counted in `credential_checks_total`).
 */
import { freePort, parsePrometheusText } from '@platform/dev-stack';
import { http, suiteApps, testStack, type ExtraApp } from '@platform/testing';
import { ADMIN, issueTokens, registerAccount, unique, type Account } from './test/accounts';

const stack = testStack();
const apps = suiteApps('revocation-');

interface Process {
  url: string;
  metricsUrl: string;
}

let replica: Process;
let gateway: Process;
let adminToken: string;

/**
 * A process of this file, sharing the stack's Redis, with a metrics port of its own. Its credential caches may keep a
 * verdict as long as the settings allow: what ends a verdict is a write to what it read, not its age.
 */
async function start(name: 'rest' | 'gateway', env: Record<string, string>): Promise<Process> {
  const metricsPort = await freePort();
  const started: ExtraApp = await apps.start(name, {
    REDIS_URL: stack.redisUrl,
    RATE_LIMIT_POINTS: '100000',
    METRICS_PORT: String(metricsPort),
    TOKEN_STATUS_CACHE_TTL_MS: '10000',
    API_KEY_CACHE_TTL_MS: '60000',
    ...env,
  });
  return { url: started.url, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
}

beforeAll(async () => {
  replica = await start('rest', { GATEWAY_MODE: 'embedded' });
  gateway = await start('gateway', {});
  adminToken = (await issueTokens(stack.restUrl, ADMIN.username, ADMIN.password)).access_token;
}, 90_000);

interface Member extends Account {
  token: string;
}

async function member(prefix: string, scope?: string): Promise<Member> {
  const account = await registerAccount(stack.restUrl, prefix);
  return { ...account, token: (await issueTokens(stack.restUrl, account.username, account.password, scope)).access_token };
}

const graphql = (query: string, options: { token?: string; apiKey?: string }) =>
  http.graphql(`${gateway.url}/graphql`, query, {}, {
    ...(options.token ? { token: options.token } : {}),
    ...(options.apiKey ? { headers: { 'x-api-key': options.apiKey } } : {}),
  });

/** Sums of a counter of one process by one label's values. */
async function counter(process: Process, name: string, label: string): Promise<Record<string, number>> {
  const samples = parsePrometheusText(await (await fetch(process.metricsUrl)).text());
  const totals: Record<string, number> = {};
  for (const sample of samples) {
    if (sample.name !== name) continue;
    const value = sample.labels[label] ?? '';
    totals[value] = (totals[value] ?? 0) + sample.value;
  }
  return totals;
}

describe('revocation with no window, on every replica', () => {
  it('when an API key is revoked through one facade, then the next request with it is refused through the other facade and the gateway', async () => {
    const owner = await member('revkey');
    const created = await http.post(`${stack.restUrl}/api-keys`, { token: owner.token, json: { name: 'revoked', scopes: ['items:read'] } });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    for (let round = 0; round < 3; round += 1) {
      expect((await http.get(`${replica.url}/items/`, { headers: { 'x-api-key': key } })).status).toBe(200);
      expect((await graphql('query RevKey { items(first: 1) { nodes { id } } }', { apiKey: key })).body.errors).toBeUndefined();
    }

    expect((await http.delete(`${stack.restUrl}/api-keys/${created.body.id}`, { token: owner.token })).status).toBe(204);

    const refused = await http.get(`${replica.url}/items/`, { headers: { 'x-api-key': key } });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('Invalid API Key');
    const viaGateway = await graphql('query RevKey { items(first: 1) { nodes { id } } }', { apiKey: key });
    expect(viaGateway.status).toBe(401);
    expect(viaGateway.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it("when a key's owner is deactivated, then the key is refused on the next request; activated again, it works again", async () => {
    const owner = await member('revowner');
    const created = await http.post(`${stack.restUrl}/api-keys`, { token: owner.token, json: { name: 'owned', scopes: ['items:read'] } });
    const key = created.body.key as string;
    const use = () => http.get(`${replica.url}/items/`, { headers: { 'x-api-key': key } });
    expect((await use()).status).toBe(200);
    expect((await use()).status).toBe(200);

    expect((await http.post(`${stack.restUrl}/users/${owner.id}/deactivate`, { token: adminToken })).status).toBe(200);
    expect((await use()).status).toBe(401);
    expect((await http.post(`${stack.restUrl}/users/${owner.id}/activate`, { token: adminToken })).status).toBe(200);
    expect((await use()).status).toBe(200);
  });

  it("when a user is deactivated through one facade, then its token's next write is refused through the other facade and the gateway", async () => {
    const user = await member('revuser');
    for (let round = 0; round < 3; round += 1) {
      expect((await http.post(`${replica.url}/items/`, { token: user.token, json: { name: `before ${round}`, price: 1 } })).status).toBe(201);
      expect((await graphql('query RevMe { me { id } }', { token: user.token })).body.errors).toBeUndefined();
    }

    expect((await http.post(`${stack.restUrl}/users/${user.id}/deactivate`, { token: adminToken })).status).toBe(200);

    const write = await http.post(`${replica.url}/items/`, { token: user.token, json: { name: 'after', price: 1 } });
    expect(write.status).toBe(401);
    expect(write.body.detail).toBe('Invalid token');
    expect((await graphql('query RevMe { me { id } }', { token: user.token })).status).toBe(401);
  });

  it('when a password is reset through one facade, then the tokens issued before are refused on the next request through the other facade', async () => {
    const user = await member('revreset');
    expect((await http.get(`${replica.url}/users/me`, { token: user.token })).status).toBe(200);
    expect((await http.get(`${replica.url}/users/me`, { token: user.token })).status).toBe(200);
    const newPassword = `pw-${unique()}-8`;
    const reset = await http.post(`${stack.restUrl}/users/${user.id}/reset-password`, {
      token: user.token,
      json: { current_password: user.password, new_password: newPassword },
    });
    expect(reset.status).toBe(200);
    expect((await http.get(`${replica.url}/users/me`, { token: user.token })).status).toBe(401);
    const fresh = (await issueTokens(stack.restUrl, user.username, newPassword)).access_token;
    expect((await http.get(`${replica.url}/users/me`, { token: fresh })).status).toBe(200);
  });
});

const keyed = (key: string) => ({ 'idempotency-key': key });

describe('Idempotency-Key replays bound to the account, for a credential allowed now', () => {
  it('when a keyed POST /api-keys and POST /items/ are retried after the user was deactivated, then 401 and no stored answer (the secret included); once active again, the replays', async () => {
    const user = await member('replaydeact');
    const keyKey = `key-${unique()}`;
    const itemKey = `item-${unique()}`;
    const createKey = () =>
      http.post(`${replica.url}/api-keys`, { token: user.token, headers: keyed(keyKey), json: { name: 'kept', scopes: ['items:read'] } });
    const createItem = () =>
      http.post(`${replica.url}/items/`, { token: user.token, headers: keyed(itemKey), json: { name: 'kept', price: 2 } });
    const firstKey = await createKey();
    const firstItem = await createItem();
    expect([firstKey.status, firstItem.status]).toEqual([201, 201]);

    expect((await http.post(`${stack.restUrl}/users/${user.id}/deactivate`, { token: adminToken })).status).toBe(200);
    for (const retry of [await createKey(), await createItem()]) {
      expect(retry.status).toBe(401);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(retry.text).not.toContain(firstKey.body.key as string);
    }

    expect((await http.post(`${stack.restUrl}/users/${user.id}/activate`, { token: adminToken })).status).toBe(200);
    const replayedKey = await createKey();
    expect(replayedKey.status).toBe(201);
    expect(replayedKey.headers.get('idempotent-replayed')).toBe('true');
    expect(replayedKey.body.key).toBe(firstKey.body.key);
    const replayedItem = await createItem();
    expect(replayedItem.headers.get('idempotent-replayed')).toBe('true');
    expect(replayedItem.body.id).toBe(firstItem.body.id);
  });

  it('when a deleted user registers again under the same username and sends the old Idempotency-Key, then the request runs for the new account: no answer of the old one', async () => {
    const first = await member('replayreuse');
    const key = `reuse-${unique()}`;
    const body = { title: 'Private thoughts', body: 'of the first account' };
    const original = await http.post(`${stack.restUrl}/posts`, { token: first.token, headers: keyed(key), json: body });
    expect(original.status).toBe(201);
    expect((await http.delete(`${stack.restUrl}/users/${first.id}`, { token: first.token })).status).toBe(204);

    const again = await http.post(`${stack.restUrl}/users/`, {
      json: { username: first.username, email: first.email, password: first.password },
    });
    expect(again.status).toBe(201);
    const token = (await issueTokens(stack.restUrl, first.username, first.password)).access_token;
    const retry = await http.post(`${replica.url}/posts`, { token, headers: keyed(key), json: body });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.id).not.toBe(original.body.id);
    expect(retry.body.author_id).toBe(again.body.id);
  });

  it("when a keyed create is retried with a token of the same account that lacks the route's scope, then the 403 a fresh request gets; the original token still gets the replay", async () => {
    const user = await member('replayscope');
    const key = `scope-${unique()}`;
    const create = (token: string) =>
      http.post(`${replica.url}/items/`, { token, headers: keyed(key), json: { name: 'scoped', price: 3 } });
    const first = await create(user.token);
    expect(first.status).toBe(201);
    const narrow = (await issueTokens(stack.restUrl, user.username, user.password, 'items:read')).access_token;
    const refused = await create(narrow);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('Not enough permissions. Required: items:write');
    expect(refused.headers.get('idempotent-replayed')).toBeNull();
    const replayed = await create(user.token);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.id).toBe(first.body.id);
  });
});

describe('the caller established once per process', () => {
  const CHECKS = 'credential_checks_total';

  it('when a facade serves requests with a bearer token, then it verifies the token and checks its account once per request', async () => {
    const user = await member('oncebearer');
    const before = await counter(replica, CHECKS, 'check');
    const REQUESTS = 6;
    for (let round = 0; round < REQUESTS; round += 1) {
      const path = round % 2 ? `/users/${user.id}` : '/items/';
      expect((await http.get(`${replica.url}${path}`, { token: user.token })).status).toBe(200);
    }
    const posted = await http.post(`${replica.url}/items/`, { token: user.token, headers: keyed(`once-${unique()}`), json: { name: 'once', price: 1 } });
    expect(posted.status).toBe(201);
    const after = await counter(replica, CHECKS, 'check');
    // The rate limit, the idempotency binding, the read cache's rights key and what goes to the subgraphs read the one
    // result: one signature check and one account check per request, a keyed POST included.
    expect((after['token'] ?? 0) - (before['token'] ?? 0)).toBe(REQUESTS + 1);
    expect((after['account_status'] ?? 0) - (before['account_status'] ?? 0)).toBe(REQUESTS + 1);
    expect((after['api_key'] ?? 0) - (before['api_key'] ?? 0)).toBe(0);
  });

  it('when a facade serves requests with an API key, then it checks the key once per request and verifies no token', async () => {
    const owner = await member('oncekey');
    const created = await http.post(`${stack.restUrl}/api-keys`, { token: owner.token, json: { name: 'once', scopes: ['items:read', 'users:read'] } });
    const before = await counter(replica, CHECKS, 'check');
    for (let round = 0; round < 4; round += 1)
      expect((await http.get(`${replica.url}/items/`, { headers: { 'x-api-key': created.body.key as string } })).status).toBe(200);
    const after = await counter(replica, CHECKS, 'check');
    expect((after['api_key'] ?? 0) - (before['api_key'] ?? 0)).toBe(4);
    expect((after['token'] ?? 0) - (before['token'] ?? 0)).toBe(0);
  });

  it('when the gateway serves operations, then it verifies each token once; the subgraph behind it verifies once per request it gets', async () => {
    const user = await member('oncegateway');
    const before = await counter(gateway, CHECKS, 'check');
    for (let round = 0; round < 5; round += 1)
      expect((await graphql('query OnceMe { me { id username } }', { token: user.token })).body.errors).toBeUndefined();
    const after = await counter(gateway, CHECKS, 'check');
    expect((after['token'] ?? 0) - (before['token'] ?? 0)).toBe(5);
    expect((after['account_status'] ?? 0) - (before['account_status'] ?? 0)).toBe(5);

    // The users subgraph is shared with the rest of the suite: it never verifies more tokens than requests it served.
    const users = { url: stack.urls['users']!, metricsUrl: stack.metricsUrls['users']! };
    const checksBefore = await counter(users, CHECKS, 'check');
    const requestsBefore = await counter(users, 'http_server_requests_total', 'method');
    // Each a document of its own: none is answered from the gateway's read cache, so each reaches the subgraph.
    for (let round = 0; round < 5; round += 1)
      expect((await graphql(`query OnceMe${round} { me { id } }`, { token: user.token })).body.errors).toBeUndefined();
    const checksAfter = await counter(users, CHECKS, 'check');
    // Other tests' requests verified by now are counted as served once they end: read the requests a moment later.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const requestsAfter = await counter(users, 'http_server_requests_total', 'method');
    const verified = (checksAfter['token'] ?? 0) - (checksBefore['token'] ?? 0);
    const served = (requestsAfter['POST'] ?? 0) - (requestsBefore['POST'] ?? 0);
    expect(verified).toBeGreaterThanOrEqual(5);
    expect(verified).toBeLessThanOrEqual(served);
  });
});
