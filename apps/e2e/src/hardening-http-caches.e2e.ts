/**
 * What HTTP caches may keep (RFC 9111; apps/rest/src/http/cache-policy.ts): a read authenticated by an API key, in the
 * X-API-Key header, the `api_key` query parameter or the `api_key` cookie, is `private, no-cache` with a `Vary` that
 * names every credential header (RFC 9111 §3.5 protects only `Authorization` from shared caches), and its 304 carries
 * the same; answers carrying a token pair or a new API key are `no-store`, their idempotent replays too; errors are
 * `no-store`; the documentation is the only public answer; the gateway's GraphQL answers are `no-store`.
 */
import { http, testStack, type HttpResponse } from '@platform/testing';
import { issueTokens, registerAccount, unique, type Account, type Tokens } from './test/accounts';

const stack = testStack();
const rest = (path: string) => `${stack.restUrl}${path}`;
const BOOTSTRAP_API_KEY = 'test-bootstrap-api-key-0123456789';

/** The names a response's Vary lists, lower-cased. */
const varyOf = (response: HttpResponse): string[] =>
  (response.headers.get('vary') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);

/** A private answer: kept for its caller only, revalidated, and varying with every credential and version input. */
function expectPrivate(response: HttpResponse): void {
  expect(response.headers.get('cache-control')).toBe('private, no-cache');
  expect(varyOf(response)).toEqual(
    expect.arrayContaining(['authorization', 'x-api-key', 'cookie', 'accept', 'x-api-version', 'origin']),
  );
}

function expectNoStore(response: HttpResponse): void {
  expect(response.headers.get('cache-control')).toBe('no-store');
}

describe('HTTP caches at the facade and the gateway', () => {
  let owner: Account;
  let tokens: Tokens;
  let itemPath: string;

  beforeAll(async () => {
    owner = await registerAccount(stack.restUrl, 'cache');
    tokens = await issueTokens(stack.restUrl, owner.username, owner.password);
    const created = await http.post(rest('/items/'), {
      token: tokens.access_token,
      json: { name: `cached-${unique()}`, price: 3 },
    });
    expect(created.status).toBe(201);
    itemPath = `/items/${created.body.id}`;
  });

  it.each([
    [
      'the X-API-Key header',
      (path: string) => ({ url: rest(path), headers: { 'x-api-key': BOOTSTRAP_API_KEY } }),
    ],
    [
      'the api_key query parameter',
      (path: string) => ({ url: rest(`${path}?api_key=${BOOTSTRAP_API_KEY}`), headers: {} }),
    ],
    [
      'the api_key cookie',
      (path: string) => ({ url: rest(path), headers: { cookie: `api_key=${BOOTSTRAP_API_KEY}` } }),
    ],
  ])(
    'when a GET is authenticated by an API key in %s, then it is private, varies with the credential, and its 304 says the same',
    async (_where, request) => {
      const { url, headers } = request(itemPath);
      const read = await http.get(url, { headers });
      expect(read.status).toBe(200);
      expectPrivate(read);
      const etag = read.headers.get('etag');
      expect(etag).toBeTruthy();
      const revalidated = await http.get(url, { headers: { ...headers, 'if-none-match': etag! } });
      expect(revalidated.status).toBe(304);
      expect(revalidated.headers.get('etag')).toBe(etag);
      expect(revalidated.headers.get('cache-control')).toBe(read.headers.get('cache-control'));
      expect(varyOf(revalidated)).toEqual(varyOf(read));
    },
  );

  it('when a GET or a listing is authenticated by a bearer token, then it is private too', async () => {
    expectPrivate(await http.get(rest('/users/me'), { token: tokens.access_token }));
    expectPrivate(await http.get(rest('/items/?limit=1'), { token: tokens.access_token }));
  });

  it('when tokens are issued or rotated, or an API key is created, then the answer is no-store (with Pragma)', async () => {
    const form = await http.post(rest('/token'), {
      form: { username: owner.username, password: owner.password },
    });
    const json = await http.post(rest('/auth/token'), {
      json: { username: owner.username, password: owner.password },
    });
    const rotated = await http.post(rest('/auth/refresh'), {
      json: { refresh_token: json.body.refresh_token },
    });
    const key = await http.post(rest('/api-keys'), {
      token: tokens.access_token,
      json: { name: `k-${unique()}`, scopes: ['items:read'] },
    });
    for (const [status, response] of [
      [200, form],
      [200, json],
      [200, rotated],
      [201, key],
    ] as const) {
      expect(response.status).toBe(status);
      expectNoStore(response);
      expect(response.headers.get('pragma')).toBe('no-cache');
    }
  });

  it("when a keyed POST is replayed, then the replay keeps the first answer's caching headers", async () => {
    const itemKey = `cache-item-${unique()}`;
    const createItem = () =>
      http.post(rest('/items/'), {
        token: tokens.access_token,
        headers: { 'idempotency-key': itemKey },
        json: { name: `replayed-${itemKey}`, price: 1 },
      });
    const first = await createItem();
    const replay = await createItem();
    expect([first.status, replay.status]).toEqual([201, 201]);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectPrivate(first);
    expectPrivate(replay);

    const keyKey = `cache-key-${unique()}`;
    const keyName = `replayed-${unique()}`.slice(0, 30);
    const createKey = () =>
      http.post(rest('/api-keys'), {
        token: tokens.access_token,
        headers: { 'idempotency-key': keyKey },
        json: { name: keyName, scopes: ['items:read'] },
      });
    const firstKey = await createKey();
    const replayedKey = await createKey();
    expect([firstKey.status, replayedKey.status]).toEqual([201, 201]);
    expect(replayedKey.headers.get('idempotent-replayed')).toBe('true');
    expectNoStore(firstKey);
    expectNoStore(replayedKey);
    expect(replayedKey.headers.get('pragma')).toBe('no-cache');
  });

  it('when a request fails (no credential, unknown path, unknown version), then the error is no-store', async () => {
    const anonymous = await http.get(rest(itemPath));
    expect(anonymous.status).toBe(401);
    expectNoStore(anonymous);
    const unknown = await http.get(rest('/nothing-here'), { token: tokens.access_token });
    expect(unknown.status).toBe(404);
    expectNoStore(unknown);
    const version = await http.get(rest(itemPath), {
      token: tokens.access_token,
      headers: { 'x-api-version': '9' },
    });
    expect(version.status).toBe(400);
    expectNoStore(version);
  });

  it('when the documentation is read, then it is public (the same for everyone), with or without a credential', async () => {
    for (const path of ['/openapi.json', '/docs']) {
      for (const headers of [{}, { 'x-api-key': BOOTSTRAP_API_KEY }] as Array<Record<string, string>>) {
        const response = await http.get(rest(path), { headers });
        expect(response.status).toBe(200);
        expect(response.headers.get('cache-control')).toBe('public, max-age=300');
      }
    }
  });

  it('when the gateway answers a query, a login or an error, then no cache may keep it', async () => {
    const gateway = `${stack.gatewayUrl}/graphql`;
    const query = await http.graphql(gateway, '{ me { id } }', {}, { token: tokens.access_token });
    expect(query.body.errors).toBeUndefined();
    expectNoStore(query);
    const login = await http.graphql(
      gateway,
      'mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }',
      { u: owner.username, p: owner.password },
    );
    expect(login.body.data.login.accessToken).toBeTruthy();
    expectNoStore(login);
    const byKey = await http.graphql(
      gateway,
      '{ items(first: 1) { totalCount } }',
      {},
      {
        headers: { 'x-api-key': BOOTSTRAP_API_KEY },
      },
    );
    expect(byKey.body.errors).toBeUndefined();
    expectNoStore(byKey);
    expectNoStore(await http.get(`${stack.gatewayUrl}/nothing-here`));
  });
});
