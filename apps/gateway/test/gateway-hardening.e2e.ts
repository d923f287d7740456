/**
 * GraphQL hardening of the gateway over HTTP: depth, alias and cost limits, no batching, CSRF prevention, the body
 * limit and security headers (shared stack); introspection and the sandbox off, per-token rate limits with their
 * headers, the facade's exemption and the CORS allowlist (an own production-mode gateway over the shared subgraphs).
 */
import { createHmac } from 'node:crypto';
import { ALL_SCOPES, signAccessToken } from '@platform/auth';
import {
  errorCodes as codesOf,
  expectPreflightAllowed,
  http,
  stackSubgraphSecret,
  stackSubgraphUrls,
  suiteApps,
  testStack,
  unique,
} from '@platform/testing';

const stack = testStack();
const sharedGateway = `${stack.gatewayUrl}/graphql`;
const tokenFor = (sub: string) =>
  signAccessToken(
    { sub, uid: null, role: 'admin', scopes: [...ALL_SCOPES], kind: 'user' },
    stack.jwtSecret,
    600,
  );

describe('GraphQL limits at the gateway (shared stack)', () => {
  it('when an operation nests deeper than 10 levels, then it is refused with 400 before any subgraph is asked', async () => {
    let selection = 'id';
    for (let i = 0; i < 5; i += 1) selection = `author { posts(first: 1) { ${selection} } }`;
    const response = await http.graphql(sharedGateway, `query TooDeep { post(id: "1") { ${selection} } }`);
    expect(response.status).toBe(400);
    expect(codesOf(response.body)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(response.body.errors[0].message).toBe('Query depth limit of 10 exceeded, found 12.');
  });

  it('when an operation nests exactly 10 levels, then the depth limit lets it through', async () => {
    let selection = 'id';
    for (let i = 0; i < 4; i += 1) selection = `author { posts(first: 1) { ${selection} } }`;
    const response = await http.graphql(sharedGateway, `{ post(id: "1") { ${selection} } }`);
    expect(JSON.stringify(response.body)).not.toContain('depth limit');
  });

  it('when an operation uses more than 30 aliases, then it is refused; 30 pass', async () => {
    const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ');
    const refused = await http.graphql(sharedGateway, `{ ${aliases(31)} }`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].message).toBe('Aliases limit of 30 exceeded, found 31.');
    const allowed = await http.graphql(sharedGateway, `{ ${aliases(30)} }`);
    expect(allowed.status).toBe(200);
    expect(Object.keys(allowed.body.data)).toHaveLength(30);
  });

  it('when an operation would return more than 25000 objects, then it is refused, whether the size is literal or a variable', async () => {
    const literal = await http.graphql(sharedGateway, 'query Big { users(first: 30000) { nodes { id } } }');
    expect(literal.status).toBe(400);
    expect(literal.body.errors[0].message).toBe('Query Cost limit of 25000 exceeded, found 217500.');
    const query = 'query Sized($n: Int) { users(first: $n) { nodes { id } } }';
    const variable = await http.graphql(sharedGateway, query, { n: 30000 });
    expect(variable.status).toBe(400);
    expect(variable.body.errors[0].message).toBe('Query Cost limit of 25000 exceeded, found 217500.');
    const small = await http.graphql(sharedGateway, query, { n: 5 }, { token: tokenFor('admin') });
    expect(JSON.stringify(small.body)).not.toContain('Cost limit');
  });

  it('when several operations are batched in one request, then the request is refused', async () => {
    const response = await http.post(sharedGateway, {
      json: [{ query: '{ __typename }' }, { query: '{ __typename }' }],
    });
    expect(response.status).toBe(400);
    expect(response.text).toMatch(/batching/i);
  });

  it('when a request could be a cross-site simple request, then CSRF prevention refuses it; a preflighted one passes', async () => {
    const plain = await http.post(sharedGateway, {
      body: JSON.stringify({ query: '{ __typename }' }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(plain.status).toBe(400);
    expect(plain.text).toMatch(/Cross-Site Request Forgery/);
    const get = await http.get(`${sharedGateway}?query=${encodeURIComponent('{ __typename }')}`);
    expect(get.status).toBe(400);
    expect(get.text).toMatch(/Cross-Site Request Forgery/);
    const preflighted = await http.get(`${sharedGateway}?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(preflighted.status).toBe(200);
    expect(preflighted.body).toEqual({ data: { __typename: 'Query' } });
  });

  it('when the body is larger than MAX_BODY_BYTES, then the gateway answers 413', async () => {
    const padding = 'x'.repeat(1_100_000);
    const response = await http.post(sharedGateway, {
      json: { query: '{ __typename }', variables: { padding } },
    });
    expect(response.status).toBe(413);
    expect(codesOf(response.body)).toEqual(['PAYLOAD_TOO_LARGE']);
  });

  /** `{"name": {"name": ... {"name": "x"}}}`, `levels` objects deep, built without recursion. */
  const nested = (levels: number): unknown => {
    let value: unknown = 'x';
    for (let i = 0; i < levels; i += 1) value = { name: value };
    return value;
  };

  /** The same as JSON text, written out (JSON.stringify itself overflows the stack at 5,000 levels). */
  const nestedText = (levels: number): string => `${'{"name":'.repeat(levels)}"x"${'}'.repeat(levels)}`;

  it('when variables nest 5,000 levels, then the request is refused 400 BAD_REQUEST naming variables, even anonymously', async () => {
    for (const query of ['query Deep($f: String) { __typename }', 'query Deep($f: UserFilter) { users(filter: $f) { nodes { id } } }']) {
      const response = await http.post(sharedGateway, {
        headers: { 'content-type': 'application/json' },
        body: `{"query":${JSON.stringify(query)},"variables":{"f":${nestedText(5_000)}}}`,
      });
      expect({ query, status: response.status, codes: codesOf(response.body) }).toEqual({
        query,
        status: 400,
        codes: ['BAD_REQUEST'],
      });
      expect(response.body.errors[0].message).toBe('`variables` nests deeper than 32 levels of objects and arrays');
    }
    // A GET's query string is bounded by the 16 KiB header limit: 100 levels fit in it.
    const viaGet = await http.get(
      `${sharedGateway}?query=${encodeURIComponent('query Deep($f: String) { __typename }')}&variables=${encodeURIComponent(JSON.stringify({ f: nested(100) }))}`,
      { headers: { 'apollo-require-preflight': 'true' } },
    );
    expect(viaGet.status).toBe(400);
    expect(viaGet.body.errors[0].message).toBe('`variables` nests deeper than 32 levels of objects and arrays');
  });

  it('when variables nest within the limit, then the depth check lets them through to GraphQL', async () => {
    const response = await http.graphql(
      sharedGateway,
      'query Shallow($f: UserFilter) { users(first: 1, filter: $f) { nodes { id } } }',
      { f: nested(30) },
    );
    expect(codesOf(response.body)).toEqual(['BAD_USER_INPUT']);
    expect(response.body.errors[0].message).toContain('Field "name" is not defined by type "UserFilter"');
  });

  it('when any response is sent, then it carries helmet headers, rate-limit headers and no X-Powered-By', async () => {
    const response = await http.graphql(sharedGateway, '{ __typename }');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('strict-transport-security')).toContain('max-age=');
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(response.headers.get('x-powered-by')).toBeNull();
    expect(response.headers.get('x-ratelimit-limit')).toBe('100000');
    expect(response.headers.get('ratelimit-policy')).toBe('"default";q=100000;w=60');
  });
});

describe('a production gateway (own process over the shared subgraphs)', () => {
  const POINTS = 5;
  const ORIGIN = 'https://app.example.test';
  const apps = suiteApps('gateway-prod-');
  let url: string;

  beforeAll(async () => {
    const gateway = await apps.start('gateway', {
      NODE_ENV: 'production',
      SUBGRAPH_SECRET: stackSubgraphSecret(stack),
      ...stackSubgraphUrls(),
      RATE_LIMIT_POINTS: String(POINTS),
      RATE_LIMIT_WINDOW: '60',
      CORS_ORIGINS: `${ORIGIN}, https://other.example.test`,
    });
    url = `${gateway.url}/graphql`;
  }, 60_000);

  it('when introspection is asked for, then it is refused; __typename still works', async () => {
    const token = tokenFor(`gw-${unique()}`);
    for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "User") { name } }']) {
      const response = await http.graphql(url, query, {}, { token });
      expect(response.status).toBe(400);
      expect(codesOf(response.body)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
      expect(response.body.errors[0].message).toMatch(/introspection/i);
    }
    expect((await http.graphql(url, '{ __typename }', {}, { token })).body).toEqual({
      data: { __typename: 'Query' },
    });
  });

  it('when a browser opens /graphql, then no sandbox is served (a development gateway serves one: graphql-ide.e2e.ts)', async () => {
    const accept = { accept: 'text/html' };
    // This gateway, and the shared stack's, which runs in production mode too.
    for (const gateway of [url, sharedGateway]) {
      const production = await http.get(gateway, { headers: accept });
      expect(production.headers.get('content-type') ?? '').not.toContain('text/html');
      expect(production.text).not.toMatch(/<html|sandbox/i);
      expect(production.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
  });

  it('when one token sends more operations than its budget, then the surplus is 429 with Retry-After and the headers', async () => {
    const token = tokenFor(`gw-${unique()}`);
    const responses = await Promise.all(
      Array.from({ length: 2 * POINTS }, () => http.graphql(url, '{ __typename }', {}, { token })),
    );
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect([ok.length, limited.length]).toEqual([POINTS, POINTS]);
    for (const response of limited) {
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(codesOf(response.body)).toEqual(['RATE_LIMITED']);
    }
    const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort();
    expect(remaining).toEqual([0, 1, 2, 3, 4]);
    expect(ok[0]!.headers.get('x-ratelimit-limit')).toBe(String(POINTS));
    expect(Number(ok[0]!.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    expect(ok[0]!.headers.get('ratelimit')).toMatch(/^"default";r=\d;t=\d+$/);
    // Another token has its own budget.
    expect(
      (await http.graphql(url, '{ __typename }', {}, { token: tokenFor(`gw-${unique()}`) })).status,
    ).toBe(200);
  });

  it('when the REST facade calls (proved with the shared secret), then its calls are not counted again; a wrong proof is', async () => {
    const token = tokenFor(`gw-${unique()}`);
    const proof = createHmac('sha256', stack.jwtSecret)
      .update('platform/rate-limit-exemption/rest-facade')
      .digest('base64url');
    const facade = await Promise.all(
      Array.from({ length: 2 * POINTS }, () =>
        http.graphql(url, '{ __typename }', {}, { token, headers: { 'x-facade-proof': proof } }),
      ),
    );
    expect(facade.every((r) => r.status === 200)).toBe(true);
    const forged = await Promise.all(
      Array.from({ length: 2 * POINTS }, () =>
        http.graphql(url, '{ __typename }', {}, { token, headers: { 'x-facade-proof': 'AAAA' } }),
      ),
    );
    expect(forged.filter((r) => r.status === 429)).toHaveLength(POINTS);
  });

  it('when a listed origin asks, then CORS allows it (preflight included); an unlisted origin gets no CORS headers', async () => {
    await expectPreflightAllowed(url, ORIGIN, 'content-type, authorization');
    const token = tokenFor(`gw-${unique()}`);
    const allowed = await http.graphql(url, '{ __typename }', {}, { token, headers: { origin: ORIGIN } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(allowed.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
    const denied = await http.graphql(
      url,
      '{ __typename }',
      {},
      { token, headers: { origin: 'https://evil.example.test' } },
    );
    expect(denied.headers.get('access-control-allow-origin')).toBeNull();
  });
});
