/**
 * Metrics over the whole stack: after a few REST and GraphQL calls, every process's METRICS_PORT serves the series a
 * platform team alerts and charts on (RED per route template and per GraphQL operation, upstream calls, MongoDB
 * commands and pool, rate limiting, Node's own), each scrape passes `promtool check metrics` (Prometheus' own lint,
 * built from the Go module proxy), and no public port serves /metrics.
 */
import {
  APP_NAMES,
  ensureGoTool,
  parsePrometheusText,
  PROMTOOL,
  promtoolCheckMetrics,
  samplesOf,
  type Sample,
} from '@platform/dev-stack';
import { http, stackSubgraphSecret, testStack } from '@platform/testing';
import { ADMIN, issueTokens } from './test/accounts';

const stack = testStack();
const rest = (path: string) => `${stack.restUrl}${path}`;
const gatewayGraphql = `${stack.gatewayUrl}/graphql`;

// promtool is built once from the Go module proxy (minutes on a fresh machine); cached afterwards.
jest.setTimeout(120_000);

let promtool: string;
const scrapes: Record<string, string> = {};
const samples: Record<string, Sample[]> = {};
let itemId: number;
let idempotencyBefore: Sample[];

/** The one sample of `name` with these labels (and its value), failing clearly when absent. */
function valueOf(app: string, name: string, labels: Record<string, string> = {}): number {
  const found = samplesOf(samples[app]!, name, labels);
  if (found.length === 0) throw new Error(`${app}: no ${name}${JSON.stringify(labels)} in the scrape`);
  return found.reduce((sum, s) => sum + s.value, 0);
}

beforeAll(async () => {
  promtool = await ensureGoTool(PROMTOOL, (m) => process.stdout.write(`${m}\n`));
  const token = (await issueTokens(stack.restUrl, ADMIN.username, ADMIN.password)).access_token;
  const created = await http.post(rest('/items/'), { token, json: { name: 'metered', price: 3 } });
  expect(created.status).toBe(201);
  itemId = created.body.id as number;
  // A keyed create, its retry (a replay) and the key reused with another body (422), counted from a scrape before.
  idempotencyBefore = parsePrometheusText((await http.get(stack.metricsUrls['rest']!)).text);
  const keyed = { token, headers: { 'idempotency-key': `metered-${Date.now()}` } };
  expect((await http.post(rest('/items/'), { ...keyed, json: { name: 'keyed', price: 1 } })).status).toBe(201);
  expect((await http.post(rest('/items/'), { ...keyed, json: { name: 'keyed', price: 1 } })).status).toBe(201);
  expect((await http.post(rest('/items/'), { ...keyed, json: { name: 'keyed', price: 2 } })).status).toBe(422);
  for (let i = 0; i < 3; i += 1) expect((await http.get(rest(`/items/${itemId}`), { token })).status).toBe(200);
  // The same read three times over GraphQL: the gateway's own series, whichever mode the facade runs.
  for (let i = 0; i < 3; i += 1) {
    const read = await http.post(gatewayGraphql, {
      token,
      json: { operationName: 'GetItem', query: 'query GetItem($id: ID!) { item(id: $id) { id name } }', variables: { id: String(itemId) } },
    });
    expect(read.status).toBe(200);
    expect(read.body.errors).toBeUndefined();
  }
  expect((await http.get(rest('/no/such/path'), { token })).status).toBe(404);
  const joined = await http.post(gatewayGraphql, {
    token,
    json: {
      operationName: 'ItemWithOwner',
      query: `query ItemWithOwner($id: ID!) { item(id: $id) { id name owner { id username } } }`,
      variables: { id: String(itemId) },
    },
  });
  expect(joined.status).toBe(200);
  expect(joined.body.errors).toBeUndefined();
  // Nested deeper than GRAPHQL_MAX_DEPTH (10): refused by the depth limit.
  const deep = `query TooDeep { item(id: "${itemId}") { owner { items { owner { items { owner { items { owner { items { owner { items { id } } } } } } } } } } } }`;
  expect((await http.post(gatewayGraphql, { token, json: { query: deep, operationName: 'TooDeep' } })).status).toBe(400);
  for (const app of APP_NAMES) {
    const response = await http.get(stack.metricsUrls[app]!);
    expect({ app, status: response.status }).toEqual({ app, status: 200 });
    expect(response.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    scrapes[app] = response.text;
    samples[app] = parsePrometheusText(response.text);
  }
});

describe('metrics listener', () => {
  it.each([...APP_NAMES])('when %s is scraped, then promtool check metrics reports no problem', async (app) => {
    const { code, output } = await promtoolCheckMetrics(promtool, scrapes[app]!);
    expect({ app, code, output }).toEqual({ app, code: 0, output: '' });
  });

  it('when the public ports are asked for /metrics, then none serves it', async () => {
    for (const app of APP_NAMES) {
      const response = await http.get(`${stack.urls[app]}/metrics`, {
        headers: app === 'rest' || app === 'gateway' ? {} : { 'x-subgraph-secret': stackSubgraphSecret(stack) },
      });
      expect({ app, status: response.status }).toEqual({ app, status: 404 });
      expect(response.text).not.toContain('# TYPE');
    }
  });

  it('when any process is scraped, then the default Node metrics are there', () => {
    for (const app of APP_NAMES) {
      expect(valueOf(app, 'process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(valueOf(app, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
      expect(samplesOf(samples[app]!, 'nodejs_eventloop_lag_seconds').length).toBe(1);
      expect(valueOf(app, 'nodejs_active_resources')).toBeGreaterThan(0);
      // Collections get their series once one has happened since start; the histogram is declared from the start.
      expect(scrapes[app]).toContain('# TYPE nodejs_gc_duration_seconds histogram');
    }
  });
});

describe('REST facade metrics', () => {
  it('when items are read by id, then requests and durations are counted under the route template, never the raw path', () => {
    const labels = { method: 'GET', route: '/items/:item_id', status_class: '2xx' };
    expect(valueOf('rest', 'http_server_requests_total', labels)).toBeGreaterThanOrEqual(3);
    expect(valueOf('rest', 'http_server_request_duration_seconds_count', labels)).toBeGreaterThanOrEqual(3);
    expect(valueOf('rest', 'http_server_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
    expect(valueOf('rest', 'http_server_requests_total', { route: 'unmatched', status_class: '4xx' })).toBeGreaterThanOrEqual(1);
    // Templates only: no label names a raw id (the item read above, the 404's path) or carries a query.
    const routes = new Set(samplesOf(samples['rest']!, 'http_server_requests_total').map((s) => s.labels['route']!));
    expect([...routes].filter((route) => /\/\d+(\/|$)|\?|\/no\/such/.test(route))).toEqual([]);
    expect(routes.has(`/items/${itemId}`)).toBe(false);
    expect(samplesOf(samples['rest']!, 'http_server_requests_in_flight').length).toBeGreaterThan(0);
  });

  it('when the facade reads items, then its upstream calls are counted per outcome with their durations', () => {
    // Embedded (the default): the facade's executor calls the items subgraph itself; remote: it calls the gateway.
    const upstream = stack.gatewayMode === 'embedded' ? 'items' : 'gateway';
    expect(valueOf('rest', 'upstream_requests_total', { upstream, outcome: 'ok' })).toBeGreaterThanOrEqual(4);
    expect(valueOf('rest', 'upstream_request_duration_seconds_count', { upstream, outcome: 'ok' })).toBeGreaterThanOrEqual(4);
  });

  it('when requests pass the rate limiter, then its decisions and the Redis store state are exported', () => {
    expect(valueOf('rest', 'rate_limit_decisions_total', { decision: 'allowed' })).toBeGreaterThanOrEqual(4);
    expect(valueOf('rest', 'rate_limit_store_up')).toBe(1);
    expect(samplesOf(samples['rest']!, 'rate_limit_store_fallbacks_total').length + samplesOf(samples['rest']!, 'rate_limit_store_errors_total').length).toBeGreaterThan(0);
  });

  it('when POSTs carry an Idempotency-Key, then the facade counts each by outcome (first, replayed, key reused)', () => {
    // Against a scrape taken just before: other suites on the shared stack count keyed POSTs too.
    const counted = (outcome: string) =>
      valueOf('rest', 'idempotency_requests_total', { outcome }) -
      samplesOf(idempotencyBefore, 'idempotency_requests_total', { outcome }).reduce((sum, s) => sum + s.value, 0);
    expect(['first', 'replayed', 'key_reused'].map((outcome) => [outcome, counted(outcome) >= 1])).toEqual([
      ['first', true],
      ['replayed', true],
      ['key_reused', true],
    ]);
  });
});

describe('gateway metrics', () => {
  it('when operations run, then the HTTP route is the operation name and GraphQL counts them by name, type and outcome', () => {
    expect(valueOf('gateway', 'http_server_requests_total', { route: 'GetItem', status_class: '2xx' })).toBeGreaterThanOrEqual(3);
    expect(valueOf('gateway', 'graphql_operations_total', { operation: 'ItemWithOwner', type: 'query', outcome: 'success' })).toBe(1);
    expect(valueOf('gateway', 'graphql_operation_duration_seconds_count', { operation: 'GetItem', type: 'query' })).toBeGreaterThanOrEqual(3);
  });

  it('when a document is too deep, then the refusal is counted by limit and by error code', () => {
    expect(valueOf('gateway', 'graphql_limits_refused_total', { limit: 'depth' })).toBeGreaterThanOrEqual(1);
    expect(valueOf('gateway', 'graphql_errors_total', { code: 'GRAPHQL_VALIDATION_FAILED' })).toBeGreaterThanOrEqual(1);
    expect(valueOf('gateway', 'graphql_operations_total', { operation: 'TooDeep', outcome: 'error' })).toBe(1);
  });

  it('when an operation joins items with owners, then each subgraph call is counted per subgraph and the plan cache is used', () => {
    expect(valueOf('gateway', 'upstream_requests_total', { upstream: 'items', outcome: 'ok' })).toBeGreaterThanOrEqual(4);
    expect(valueOf('gateway', 'upstream_requests_total', { upstream: 'users', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(valueOf('gateway', 'upstream_request_duration_seconds_bucket', { upstream: 'items', outcome: 'ok', le: '+Inf' })).toBeGreaterThanOrEqual(4);
    expect(valueOf('gateway', 'graphql_query_plan_cache_requests_total', { result: 'hit' })).toBeGreaterThanOrEqual(2);
    expect(valueOf('gateway', 'graphql_query_plan_cache_requests_total', { result: 'miss' })).toBeGreaterThanOrEqual(1);
  });
});

describe('subgraph metrics', () => {
  it('when items are read, then the items subgraph times its MongoDB commands by command and collection, and exports its pool', () => {
    expect(valueOf('items', 'mongodb_command_duration_seconds_count', { command: 'find', collection: 'items', outcome: 'ok' })).toBeGreaterThanOrEqual(3);
    expect(valueOf('items', 'mongodb_command_duration_seconds_count', { command: 'insert', collection: 'items', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(valueOf('items', 'mongodb_pool_connections', { state: 'open' })).toBeGreaterThan(0);
    expect(valueOf('items', 'mongodb_pool_wait_seconds_count')).toBeGreaterThan(0);
  });

  it('when the gateway fetches from a subgraph, then the subgraph counts the fetch under its operation name', () => {
    const fetches = samplesOf(samples['items']!, 'graphql_operations_total', { type: 'query', outcome: 'success' });
    expect(fetches.map((s) => s.labels['operation'])).toEqual(expect.arrayContaining([expect.stringMatching(/^GetItem__items__\d+$/)]));
  });

  it('when someone logs in, then the auth subgraph counts the login throttle decisions and exports its blocks', () => {
    expect(valueOf('auth', 'rate_limit_decisions_total', { limiter: 'rl:login', decision: 'allowed' })).toBeGreaterThanOrEqual(1);
    expect(valueOf('auth', 'auth_login_throttle_blocks_total')).toBeGreaterThanOrEqual(0);
    expect(valueOf('auth', 'rate_limit_store_up')).toBe(1);
  });
});
