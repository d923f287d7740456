/**
 * GATEWAY_MODE=embedded: a facade that runs the gateway's executor in its own process answers exactly as the default
 * facade (through the gateway process) does, over the same subgraphs and data: reads, writes, listings with cursors,
 * errors, API keys; the gateway process is not on its path; an unreachable subgraph is a 503. In both modes every
 * fixed operation is planned at start by a dry run that reaches no subgraph.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { http, type HttpResponse } from '@platform/testing';
import {
  closedUrl,
  loginToken,
  registerUser,
  stack,
  startRest,
  stopAll,
  unique,
  type ExtraProcess,
} from './test/interface-support';

const subgraphUrls = {
  USERS_SUBGRAPH_URL: `${stack.urls['users']}/graphql`,
  ITEMS_SUBGRAPH_URL: `${stack.urls['items']}/graphql`,
  AUTH_SUBGRAPH_URL: `${stack.urls['auth']}/graphql`,
  POSTS_SUBGRAPH_URL: `${stack.urls['posts']}/graphql`,
};

let embedded: ExtraProcess;
let token: string;
let userId: number;

beforeAll(async () => {
  // GATEWAY_URL points at nothing: every answer below has to come from the embedded executor.
  embedded = await startRest({ GATEWAY_MODE: 'embedded', GATEWAY_URL: await closedUrl(), ...subgraphUrls });
  const account = await registerUser(embedded.url, 'emb');
  userId = account.id;
  token = await loginToken(embedded.url, account.username, account.password);
}, 120_000);

afterAll(() => stopAll());

/** The same request to the default facade and to the embedded one, with one request id each. */
async function both(
  method: 'get' | 'post' | 'patch' | 'delete',
  path: string,
  options: Parameters<typeof http.get>[1] = {},
) {
  const call = (base: string) =>
    http[method](`${base}${path}`, {
      ...options,
      headers: { ...options.headers, 'x-request-id': `emb-${unique()}` },
    });
  return { remote: await call(stack.restUrl), embedded: await call(embedded.url) };
}

interface LogLine {
  msg?: string;
  operation?: string;
  planned?: number;
  operations?: number;
  requestId?: string;
}

/** The JSON lines of a process log; the last one may still be partly written (the logs are buffered), so skipped. */
const logLines = (file: string): LogLine[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as LogLine];
      } catch {
        return [];
      }
    });

const comparable = (response: HttpResponse) => ({ status: response.status, body: response.body as unknown });

describe('REST facade with GATEWAY_MODE=embedded', () => {
  it('when a user registered through it is read, then both facades return the same representation', async () => {
    const { remote, embedded: local } = await both('get', `/users/${userId}`, { token });
    expect(local.status).toBe(200);
    expect(local.body).toMatchObject({ id: userId });
    expect(comparable(local)).toEqual(comparable(remote));
    const me = await both('get', '/users/me', { token });
    expect(comparable(me.embedded)).toEqual(comparable(me.remote));
  });

  it('when items are created and listed with a filter and a cursor, then both facades page identically', async () => {
    const tag = unique();
    for (const price of [101, 102, 103]) {
      const created = await http.post(`${embedded.url}/items/`, {
        token,
        json: { name: `emb-${tag}-${price}`, price },
      });
      expect(created.status).toBe(201);
    }
    const first = await both('get', `/items/?name=emb-${tag}-102&pageSize=2`, { token });
    expect(comparable(first.embedded)).toEqual(comparable(first.remote));
    const page = await both('get', `/items/?price%5Bgt%5D=100&price%5Blt%5D=104&pageSize=2`, { token });
    expect(page.embedded.status).toBe(200);
    expect(comparable(page.embedded)).toEqual(comparable(page.remote));
  });

  it('when a record is missing, the body invalid or the token absent, then the errors are the same', async () => {
    for (const [method, path, options] of [
      ['get', '/users/2147483000', { token }],
      ['get', `/users/${userId}`, {}],
      ['patch', `/users/${userId}`, { token, json: { role: 'admin' } }],
      ['get', '/items/?price%5Blt%5D=abc', { token }],
    ] as const) {
      const { remote, embedded: local } = await both(method, path, options);
      expect({ path, status: local.status }).toEqual({ path, status: remote.status });
      expect(local.status).toBeGreaterThanOrEqual(400);
      const strip = (body: unknown) =>
        JSON.parse(JSON.stringify(body).replace(/emb-[a-z0-9]+/g, 'ID')) as unknown;
      expect(strip(local.body)).toEqual(strip(remote.body));
    }
  });

  it('when an API key is used, then it is exchanged in-process; a bad key is the same 401', async () => {
    const created = await http.post(`${embedded.url}/api-keys`, {
      token,
      json: { name: 'embedded key', scopes: ['users:read'] },
    });
    expect(created.status).toBe(201);
    const withKey = await http.get(`${embedded.url}/users/${userId}`, {
      headers: { 'x-api-key': created.body.key as string },
    });
    expect(withKey.status).toBe(200);
    expect(withKey.body).toMatchObject({ id: userId });
    const bad = await both('get', `/users/${userId}`, { headers: { 'x-api-key': 'ak_not_a_key' } });
    expect(bad.embedded.status).toBe(401);
    expect(comparable(bad.embedded)).toEqual(comparable(bad.remote));
  });

  it('when a request is served, then the users subgraph logs it under its request id and the gateway process never sees it', async () => {
    const requestId = `emb-trace-${unique()}`;
    // A write: it always reaches its subgraph (a read may be answered from the read cache, ADR 0017).
    const response = await http.patch(`${embedded.url}/users/${userId}`, {
      token,
      json: { full_name: 'Traced' },
      headers: { 'x-request-id': requestId },
    });
    expect(response.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const logOf = (name: string) => readFileSync(join(stack.urls['logDir']!, `${name}.log`), 'utf8');
    expect(logOf('users')).toContain(requestId);
    expect(logOf('gateway')).not.toContain(requestId);
  });

  it('when a subgraph is unreachable, then the read is a 503 with Retry-After, not a 500', async () => {
    const cut = await startRest({
      GATEWAY_MODE: 'embedded',
      ...subgraphUrls,
      USERS_SUBGRAPH_URL: await closedUrl(),
    });
    const response = await http.get(`${cut.url}/users/${userId}`, { token });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(JSON.stringify(response.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|stack/i);
    // A bearer token is only honoured while the users subgraph can say its account still exists and is active
    // (access-token revocation): with users down, an items read is a 503 too, never a 500 or a pass.
    const items = await http.get(`${cut.url}/items/?pageSize=1`, { token });
    expect(items.status).toBe(503);
    expect(items.headers.get('retry-after')).toBe('5');
  });
});

describe('plans warmed at start', () => {
  const warmed = (file: string) => logLines(file).find((line) => line.msg === 'operation plans warmed');

  it('when either facade started, then it planned every one of its operations before serving', () => {
    const remote = warmed(join(stack.urls['logDir']!, 'rest.log'));
    const local = warmed(join(embedded.logDir, 'rest.log'));
    expect(remote?.operations).toBeGreaterThan(30);
    expect(remote).toMatchObject({ planned: remote?.operations });
    expect(local).toMatchObject({ planned: remote?.operations, operations: remote?.operations });
  });

  it('when the plans were warmed, then no dry run reached a subgraph, and the gateway saw the remote ones', () => {
    const subgraphLines = ['users', 'items', 'auth', 'posts'].flatMap((name) =>
      logLines(join(stack.urls['logDir']!, `${name}.log`)),
    );
    expect(subgraphLines.length).toBeGreaterThan(0);
    // A gateway names its subgraph fetches `<operation>__<subgraph>__<n>` (GetUser__users__0). Other tests point a
    // facade's GATEWAY_URL straight at a subgraph; those warm-up posts carry the facade's own names and are not fetches.
    const fetches = subgraphLines.filter((line) => /__[a-z]+__\d+$/.test(line.operation ?? ''));
    expect(fetches.length).toBeGreaterThan(0);
    expect(fetches.filter((line) => line.requestId === 'warm-up')).toEqual([]);
    const gatewayDryRuns = logLines(join(stack.urls['logDir']!, 'gateway.log')).filter(
      (line) => line.requestId === 'warm-up' && line.msg === 'request completed',
    );
    expect(gatewayDryRuns.length).toBeGreaterThan(30);
  });

  it('when a client asks the gateway for a dry run without the facade proof, then the operation runs for real', async () => {
    const response = await http.graphql(
      `${stack.gatewayUrl}/graphql`,
      'query GetUser($id: ID!) { user(id: $id) { id } }',
      { id: String(userId) },
      { token, headers: { 'x-warm-up': '1' } },
    );
    expect(response.body).toEqual({ data: { user: { id: String(userId) } } });
  });
});
