/**
 * API keys over the real stack: created over REST with a login token, accepted in header, query and cookie, exchanged
 * by the gateway for a JWT, scoped no wider than the creator, revoked, dead with their creator, never in a listing or a log.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { digestSecret } from '@platform/auth';
import { unique, http, testStack, type HttpResponse } from '@platform/testing';

const stack = testStack();
const gql = `${stack.gatewayUrl}/graphql`;
/** The value libs/testing/src/jest/global-setup.ts gives BOOTSTRAP_API_KEY. */
const BOOTSTRAP_API_KEY = 'test-bootstrap-api-key-0123456789';
/** Gateway verdict cache (API_KEY_CACHE_TTL_MS, 10 s by default) plus a margin: how long a revoked key may live on. */
const REVOCATION_DELAY_MS = 15_000;

/** Every key this file creates, to scan the process logs for at the end. */
const issuedKeys: string[] = [];

interface Account {
  id: number;
  username: string;
  password: string;
  token: string;
}

async function login(username: string, password: string, scope?: string): Promise<string> {
  const response = await http.graphql(
    gql,
    'mutation Login($username: String!, $password: String!, $scope: String) { login(username: $username, password: $password, scope: $scope) { accessToken } }',
    { username, password, scope: scope ?? null },
  );
  if (!response.body.data?.login) throw new Error(`login failed: ${response.text}`);
  return response.body.data.login.accessToken as string;
}

async function registerAccount(prefix = 'ak'): Promise<Account> {
  const username = `${prefix}${unique()}`;
  const password = 'key-owner-pass-1';
  const created = await http.post(`${stack.restUrl}/users/`, { json: { username, email: `${username}@example.com`, password } });
  expect(created.status).toBe(201);
  return { id: created.body.id as number, username, password, token: await login(username, password) };
}

async function createKey(token: string, scopes: string[], name = 'test key'): Promise<HttpResponse> {
  const response = await http.post(`${stack.restUrl}/api-keys`, { token, json: { name, scopes } });
  if (typeof response.body?.key === 'string') issuedKeys.push(response.body.key);
  return response;
}

type Place = 'header' | 'query' | 'cookie';
const PLACES: Place[] = ['header', 'query', 'cookie'];

function getWithKey(path: string, key: string, place: Place = 'header'): Promise<HttpResponse> {
  if (place === 'query') {
    return http.get(`${stack.restUrl}${path}${path.includes('?') ? '&' : '?'}api_key=${encodeURIComponent(key)}`);
  }
  return http.get(`${stack.restUrl}${path}`, {
    headers: place === 'header' ? { 'x-api-key': key } : { cookie: `theme=dark; api_key=${encodeURIComponent(key)}` },
  });
}

/** Repeats the read until it answers 401 or the revocation delay is over; returns the last response. */
async function untilUnauthorized(read: () => Promise<HttpResponse>): Promise<HttpResponse> {
  const deadline = Date.now() + REVOCATION_DELAY_MS;
  let response = await read();
  while (response.status !== 401 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    response = await read();
  }
  return response;
}

describe('API keys', () => {
  let owner: Account;

  beforeAll(async () => {
    owner = await registerAccount();
  });

  it('when a member creates a key, then it is shown once (201) and the listing shows a prefix but never the key or its digest', async () => {
    const created = await createKey(owner.token, ['users:read', 'items:read'], 'reporting');
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'reporting',
      scopes: ['users:read', 'items:read'],
      key: expect.stringMatching(/^ak_[A-Za-z0-9_-]{43}$/),
      created_at: expect.any(String),
    });
    expect(Number.isNaN(Date.parse(created.body.created_at))).toBe(false);
    const key: string = created.body.key;

    const listed = await http.get(`${stack.restUrl}/api-keys`, { token: owner.token });
    expect(listed.status).toBe(200);
    expect(listed.body).toContainEqual({
      id: created.body.id,
      name: 'reporting',
      scopes: ['users:read', 'items:read'],
      prefix: key.slice(0, 9),
      created_at: created.body.created_at,
      last_used_at: null,
    });
    expect(listed.text).not.toContain(key);
    expect(listed.text).not.toContain(key.slice(9));
    expect(listed.text).not.toContain(digestSecret(key));
  });

  it.each(PLACES)('when a valid key is sent in the %s, then GET /users/{id} answers 200', async (place) => {
    const created = await createKey(owner.token, ['users:read']);
    expect(created.status).toBe(201);
    const read = await getWithKey(`/users/${owner.id}`, created.body.key, place);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: owner.id, username: owner.username });
  });

  it.each(PLACES)('when a valid items:read key is sent in the %s, then GET /items/ answers 200 with the items', async (place) => {
    const item = await http.post(`${stack.restUrl}/items/`, { token: owner.token, json: { name: `keyed ${unique()}`, price: 12.5 } });
    expect(item.status).toBe(201);
    const created = await createKey(owner.token, ['items:read']);
    const listed = await getWithKey(`/items/?owner_id=${owner.id}&limit=1000`, created.body.key, place);
    expect(listed.status).toBe(200);
    expect(Array.isArray(listed.body)).toBe(true);
    expect(listed.body).toContainEqual(expect.objectContaining({ id: item.body.id, name: item.body.name }));
  });

  it('when a key lacks items:read, then GET /items/ is refused with 403 naming items:read; a wrong key is 401', async () => {
    const created = await createKey(owner.token, ['users:read']);
    const listed = await getWithKey('/items/', created.body.key);
    expect(listed.status).toBe(403);
    expect(listed.body).toEqual({ detail: 'Not enough permissions. Required: items:read' });
    const wrong = await getWithKey('/items/', 'ak_not-a-key');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ detail: 'Invalid API Key' });
  });

  it.each(PLACES)('when a wrong key is sent in the %s, then the answer is 401 "Invalid API Key"', async (place) => {
    const read = await getWithKey(`/users/${owner.id}`, `ak_wrong${unique()}`, place);
    expect(read.status).toBe(401);
    expect(read.body).toEqual({ detail: 'Invalid API Key' });
  });

  it('when a very long or a key-shaped but unknown key is sent, then the answer is 401 "Invalid API Key", never a 5xx', async () => {
    for (const key of ['x'.repeat(2000), `ak_${'A'.repeat(43)}`]) {
      const read = await getWithKey(`/users/${owner.id}`, key);
      expect(read.status).toBe(401);
      expect(read.body).toEqual({ detail: 'Invalid API Key' });
    }
  });

  it('when a key grants only items:read, then a users read is refused with 403 naming users:read', async () => {
    const created = await createKey(owner.token, ['items:read']);
    expect(created.status).toBe(201);
    const read = await getWithKey(`/users/${owner.id}`, created.body.key);
    expect(read.status).toBe(403);
    expect(read.body).toEqual({ detail: 'Not enough permissions. Required: users:read' });
  });

  it('when a key asks for a scope wider than the token or an unknown scope, then creation is a validation error naming scopes', async () => {
    const narrow = await login(owner.username, owner.password, 'items:read');
    const wider = await createKey(narrow, ['items:read', 'users:read']);
    expect(wider.status).toBe(422);
    expect(wider.body.detail).toContain('scopes');
    const unknownScope = await createKey(owner.token, ['items:read', 'everything:admin']);
    expect(unknownScope.status).toBe(422);
    expect(unknownScope.body.detail).toContain('scopes');
    const empty = await createKey(owner.token, []);
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toContain('scopes');
    const listed = await http.get(`${stack.restUrl}/api-keys`, { token: narrow });
    expect(listed.body.map((k: { scopes: string[] }) => k.scopes)).not.toContainEqual(['items:read', 'users:read']);
  });

  it('when a viewer-scoped token creates a write key, then it is refused; within its scopes it succeeds', async () => {
    const readOnly = await login(owner.username, owner.password, 'users:read items:read posts:read');
    expect((await createKey(readOnly, ['items:write'])).status).toBe(422);
    expect((await createKey(readOnly, ['posts:read'])).status).toBe(201);
  });

  it('when keys are managed without a login token, then they are refused (401 without bearer, 403 with an API key at the gateway)', async () => {
    const created = await createKey(owner.token, ['users:read']);
    const key: string = created.body.key;
    const noBearer = await http.post(`${stack.restUrl}/api-keys`, { headers: { 'x-api-key': key }, json: { name: 'n', scopes: ['users:read'] } });
    expect(noBearer.status).toBe(401);
    const viaGateway = await http.graphql(gql, '{ apiKeys { id } }', {}, { headers: { 'x-api-key': key } });
    expect(viaGateway.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('when a key is revoked, then DELETE answers 204, it leaves the listing and stops working within the cache delay', async () => {
    const created = await createKey(owner.token, ['users:read']);
    const key: string = created.body.key;
    expect((await getWithKey(`/users/${owner.id}`, key)).status).toBe(200);

    const revoked = await http.delete(`${stack.restUrl}/api-keys/${created.body.id}`, { token: owner.token });
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    const listed = await http.get(`${stack.restUrl}/api-keys`, { token: owner.token });
    expect(listed.body.map((k: { id: number }) => k.id)).not.toContain(created.body.id);

    const after = await untilUnauthorized(() => getWithKey(`/users/${owner.id}`, key));
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ detail: 'Invalid API Key' });
    expect((await http.delete(`${stack.restUrl}/api-keys/${created.body.id}`, { token: owner.token })).status).toBe(404);
  }, REVOCATION_DELAY_MS + 10_000);

  it('when a key is revoked before its first use, then it is refused at once', async () => {
    const created = await createKey(owner.token, ['users:read']);
    expect((await http.delete(`${stack.restUrl}/api-keys/${created.body.id}`, { token: owner.token })).status).toBe(204);
    const read = await getWithKey(`/users/${owner.id}`, created.body.key, 'query');
    expect(read.status).toBe(401);
    expect(read.body).toEqual({ detail: 'Invalid API Key' });
  });

  it("when another user revokes or lists a user's key, then it is 404 and absent, and the key keeps working", async () => {
    const created = await createKey(owner.token, ['users:read']);
    const other = await registerAccount('akother');
    const attempt = await http.delete(`${stack.restUrl}/api-keys/${created.body.id}`, { token: other.token });
    expect(attempt.status).toBe(404);
    const missing = await http.delete(`${stack.restUrl}/api-keys/999999999`, { token: other.token });
    expect(missing.status).toBe(404);
    expect(attempt.body).toEqual({ detail: expect.any(String) });
    expect(attempt.body.detail.replace(String(created.body.id), 'N')).toBe(missing.body.detail.replace('999999999', 'N'));
    const listed = await http.get(`${stack.restUrl}/api-keys`, { token: other.token });
    expect(listed.body).toEqual([]);
    expect((await getWithKey(`/users/${owner.id}`, created.body.key)).status).toBe(200);
  });

  it('when BOOTSTRAP_API_KEY is sent, then reads work (every *:read scope) and writes are refused', async () => {
    for (const place of PLACES) {
      const read = await getWithKey(`/users/${owner.id}`, BOOTSTRAP_API_KEY, place);
      expect(read.status).toBe(200);
      expect(read.body.id).toBe(owner.id);
    }
    const items = await getWithKey('/items/', BOOTSTRAP_API_KEY, 'cookie');
    expect(items.status).toBe(200);
    const write = await http.graphql(
      gql,
      'mutation ($id: ID!) { updateUser(id: $id, input: { fullName: "x" }) { id } }',
      { id: String(owner.id) },
      { headers: { 'x-api-key': BOOTSTRAP_API_KEY } },
    );
    expect(write.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(write.body.errors[0].message).toBe('Not enough permissions. Required: users:write');
  });

  it("when the key's creator is deactivated, then the key stops working within the cache delay", async () => {
    const account = await registerAccount('akdeact');
    const created = await createKey(account.token, ['users:read']);
    const key: string = created.body.key;
    expect((await getWithKey(`/users/${account.id}`, key)).status).toBe(200);

    const admin = await login('admin', 'admin-password-1');
    const deactivated = await http.graphql(gql, 'mutation ($id: ID!) { deactivateUser(id: $id) { isActive } }', { id: String(account.id) }, { token: admin });
    expect(deactivated.body).toEqual({ data: { deactivateUser: { isActive: false } } });

    const after = await untilUnauthorized(() => getWithKey(`/users/${owner.id}`, key));
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ detail: 'Invalid API Key' });
  }, REVOCATION_DELAY_MS + 10_000);

  it("when the key's creator deletes the account, then the key is purged and refused", async () => {
    const account = await registerAccount('akdel');
    const created = await createKey(account.token, ['users:read']);
    const key: string = created.body.key;
    const deleted = await http.graphql(gql, 'mutation ($id: ID!) { deleteUser(id: $id) }', { id: String(account.id) }, { token: account.token });
    expect(deleted.body).toEqual({ data: { deleteUser: true } });
    const read = await getWithKey(`/users/${owner.id}`, key);
    expect(read.status).toBe(401);
    expect(read.body).toEqual({ detail: 'Invalid API Key' });
  });

  it('when the gateway is sent a wrong key, then the whole operation fails with 401 UNAUTHENTICATED "Invalid API Key"', async () => {
    const response = await http.graphql(gql, 'query ($id: ID!) { user(id: $id) { id } }', { id: String(owner.id) }, { headers: { 'x-api-key': 'ak_nope' } });
    expect(response.status).toBe(401);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toEqual([{ message: 'Invalid API Key', extensions: { code: 'UNAUTHENTICATED' } }]);
  });

  it('when keys are managed over GraphQL, then createApiKey, apiKeys and revokeApiKey follow the same rules', async () => {
    const created = await http.graphql(
      gql,
      'mutation ($input: CreateApiKeyInput!) { createApiKey(input: $input) { id name scopes prefix key createdAt } }',
      { input: { name: 'graphql key', scopes: ['users:read'] } },
      { token: owner.token },
    );
    const node = created.body.data.createApiKey;
    issuedKeys.push(node.key);
    expect(node).toMatchObject({ name: 'graphql key', scopes: ['users:read'], prefix: node.key.slice(0, 9) });

    const listed = await http.graphql(gql, '{ apiKeys { id name scopes prefix createdAt lastUsedAt } }', {}, { token: owner.token });
    expect(listed.body.data.apiKeys).toContainEqual({ id: node.id, name: 'graphql key', scopes: ['users:read'], prefix: node.prefix, createdAt: node.createdAt, lastUsedAt: null });

    const viaKey = await http.graphql(gql, 'query ($id: ID!) { user(id: $id) { id } }', { id: String(owner.id) }, { headers: { 'x-api-key': node.key } });
    expect(viaKey.body).toEqual({ data: { user: { id: String(owner.id) } } });

    const wider = await http.graphql(
      gql,
      'mutation ($input: CreateApiKeyInput!) { createApiKey(input: $input) { id } }',
      { input: { name: 'too wide', scopes: ['users:read'] } },
      { token: await login(owner.username, owner.password, 'items:read') },
    );
    expect(wider.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(wider.body.errors[0].extensions.details).toEqual([{ field: 'scopes', message: expect.stringContaining('users:read') }]);

    const internal = await http.graphql(gql, 'query ($key: String!) { _verifyApiKey(key: $key) { userId } }', { key: node.key }, { token: owner.token });
    expect(internal.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');

    const revoked = await http.graphql(gql, 'mutation ($id: ID!) { revokeApiKey(id: $id) }', { id: node.id }, { token: owner.token });
    expect(revoked.body).toEqual({ data: { revokeApiKey: true } });
    const again = await http.graphql(gql, 'mutation ($id: ID!) { revokeApiKey(id: $id) }', { id: node.id }, { token: owner.token });
    expect(again.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('when the run is over, then no key this file issued (nor the bootstrap key) appears in any process log', () => {
    expect(issuedKeys.length).toBeGreaterThan(5);
    const logDir = stack.urls['logDir']!;
    const logs = readdirSync(logDir)
      .filter((name) => name.endsWith('.log'))
      .map((name) => readFileSync(join(logDir, name), 'utf8'));
    expect(logs.length).toBeGreaterThanOrEqual(6);
    // The logs hold the requests this file made (an empty log would pass the scan vacuously).
    expect(logs.join('\n')).toContain('"msg":"request completed"');
    for (const text of logs) {
      for (const key of [...issuedKeys, BOOTSTRAP_API_KEY]) {
        expect(text).not.toContain(key);
        expect(text).not.toContain(key.slice(9));
      }
    }
  });
});
