/**
 * Tracing over the whole stack: a second system of the six real processes (same FerretDB and Redis as the shared
 * stack) with OpenTelemetry configured only by OTEL_* variables, exporting OTLP/HTTP to a receiver in the test kit
 * that decodes the real OTLP/JSON payloads. One REST call, and one GraphQL query joining items with their owners, each
 * arrive as one trace: spans from rest, the gateway, the subgraphs and their MongoDB commands, linked parent to child
 * across the processes by W3C trace context. The REST edge does not trust a client's sampled flag (OTEL_TRACES_SAMPLER
 * always_on); the gateway does (parentbased_always_on, the default).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, productionMode, startSystem, type RunningSystem } from '@platform/dev-stack';
import { http, startOtlpReceiver, testStack, type OtlpReceiver, type ReceivedSpan } from '@platform/testing';
import { ADMIN, issueTokens } from './test/accounts';

jest.setTimeout(180_000);

const SERVER = 2;
const CLIENT = 3;

const stack = testStack();
let receiver: OtlpReceiver;
let system: RunningSystem;
let logs: ReturnType<typeof makeTempDir>;
let token: string;
let itemId: number;

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  logs = makeTempDir('tracing-e2e-');
  system = await startSystem({
    rootDir: stack.rootDir,
    mongoUrl: stack.mongoUrl,
    redisUrl: stack.redisUrl,
    jwtSecret: stack.jwtSecret,
    freePorts: true,
    logDir: logs.path,
    env: {
      ...productionMode(stack.subgraphSecret),
      LOG_LEVEL: 'info',
      DATA_DIR: join(logs.path, 'data'),
      RATE_LIMIT_POINTS: '100000',
      LOGIN_RATE_LIMIT_POINTS: '100000',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      // The trace under test crosses all three processes (rest -> gateway -> subgraph).
      GATEWAY_MODE: 'remote',
    },
    envFor: { rest: { OTEL_TRACES_SAMPLER: 'always_on' } },
  });
  token = (await issueTokens(system.urls.rest, ADMIN.username, ADMIN.password)).access_token;
  const created = await http.post(`${system.urls.rest}/items/`, { token, json: { name: 'traced', price: 1 } });
  expect(created.status).toBe(201);
  itemId = created.body.id as number;
});

afterAll(async () => {
  await system?.stop();
  await receiver?.close();
  logs?.remove();
});

/** The span's ancestors inside the trace, nearest first. */
function ancestors(span: ReceivedSpan, trace: ReceivedSpan[]): ReceivedSpan[] {
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  const chain: ReceivedSpan[] = [];
  for (let parent = span.parentSpanId && byId.get(span.parentSpanId); parent; parent = parent.parentSpanId && byId.get(parent.parentSpanId)) {
    chain.push(parent);
  }
  return chain;
}

const parentOf = (span: ReceivedSpan, trace: ReceivedSpan[]) => trace.find((s) => s.spanId === span.parentSpanId);
const isDb = (system: string) => (span: ReceivedSpan) =>
  span.attributes['db.system'] === system || span.attributes['db.system.name'] === system;
const isMongo = isDb('mongodb');
const isRedis = isDb('redis');
const serverSpan = (trace: ReceivedSpan[], service: string) => trace.find((s) => s.service === service && s.kind === SERVER);

/**
 * Every server span of a subgraph (the planned fetches, and the gateway's own account-state checks) is a child of a
 * gateway client span, and each of its MongoDB commands descends from one of them.
 */
function expectSubgraphUnderGateway(trace: ReceivedSpan[], subgraph: string): void {
  const servers = trace.filter((s) => s.service === subgraph && s.kind === SERVER);
  expect({ subgraph, servers: servers.length > 0 }).toEqual({ subgraph, servers: true });
  for (const server of servers) {
    const parent = parentOf(server, trace);
    expect({ subgraph, parent: parent && { service: parent.service, kind: parent.kind } }).toEqual({
      subgraph,
      parent: { service: 'gateway', kind: CLIENT },
    });
  }
  const mongo = trace.filter((s) => s.service === subgraph && isMongo(s));
  expect({ subgraph, mongoSpans: mongo.length > 0 }).toEqual({ subgraph, mongoSpans: true });
  for (const span of mongo) {
    expect({ span: span.name, underServer: ancestors(span, trace).some((a) => servers.includes(a)) }).toEqual({
      span: span.name,
      underServer: true,
    });
  }
}

describe('tracing', () => {
  it('when a client reads GET /items/{id} with an unsampled traceparent, then the untrusting REST edge still traces it: one trace over rest (and its Redis command), gateway, items and MongoDB with correct parent links, and its log lines carry the ids', async () => {
    const traceId = hex(16);
    const clientSpanId = hex(8);
    const response = await http.get(`${system.urls.rest}/items/${itemId}`, {
      token,
      headers: { traceparent: `00-${traceId}-${clientSpanId}-00` },
    });
    expect(response.status).toBe(200);
    const trace = await receiver.trace(
      traceId,
      (spans) =>
        spans.some((s) => s.service === 'items' && isMongo(s)) &&
        spans.some((s) => s.service === 'rest' && s.kind === SERVER) &&
        spans.some((s) => s.service === 'rest' && isRedis(s)) &&
        // Each process exports its spans in batches of its own, a child before its parent: wait for the whole tree.
        spans.every((s) => s === serverSpan(spans, 'rest') || parentOf(s, spans) !== undefined),
    );
    // users appears too when the gateway re-checks the token's account state (its 2 s cache expired): still this trace.
    const services = new Set(trace.map((s) => s.service));
    expect([...services]).toEqual(expect.arrayContaining(['rest', 'gateway', 'items']));
    expect([...services].filter((s) => !['rest', 'gateway', 'items', 'users'].includes(s))).toEqual([]);
    const root = serverSpan(trace, 'rest')!;
    expect(root.parentSpanId).toBe(clientSpanId);
    expect(root.attributes['http.route']).toBe('/items/:item_id');
    // Every other span's parent is in the trace: one tree under the REST call.
    for (const span of trace.filter((s) => s !== root)) {
      expect({ span: `${span.service} ${span.name}`, parentInTrace: Boolean(parentOf(span, trace)) }).toEqual({
        span: `${span.service} ${span.name}`,
        parentInTrace: true,
      });
      expect(ancestors(span, trace)).toContain(root);
    }
    const gateway = serverSpan(trace, 'gateway')!;
    expect(parentOf(gateway, trace)).toMatchObject({ service: 'rest', kind: CLIENT });
    // The facade's rate-limit decision is a Redis command inside the same request.
    const redis = trace.filter((s) => s.service === 'rest' && isRedis(s));
    expect(redis.length).toBeGreaterThan(0);
    for (const span of redis) expect(ancestors(span, trace)).toContain(root);
    expectSubgraphUnderGateway(trace, 'items');
    // The facade's access line for this request carries the trace and its span.
    const restLog = readFileSync(join(logs.path, 'rest.log'), 'utf8');
    const line = restLog.split('\n').find((l) => l.includes(`"trace_id":"${traceId}"`) && l.includes('request completed'));
    expect(line).toBeDefined();
    expect(line).toMatch(/"span_id":"[0-9a-f]{16}"/);
  });

  it('when a GraphQL query joins items with their owners, then it is one trace from the gateway through items and users down to their MongoDB commands', async () => {
    const response = await http.post(`${system.urls.gateway}/graphql`, {
      token,
      json: {
        operationName: 'ItemWithOwner',
        query: 'query ItemWithOwner($id: ID!) { item(id: $id) { id name owner { id username } } }',
        variables: { id: String(itemId) },
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.data.item.owner.username).toBe(ADMIN.username);
    // The gateway's server span for this operation names the trace.
    const deadline = Date.now() + 20_000;
    let root: ReceivedSpan | undefined;
    while (!root && Date.now() < deadline) {
      root = receiver.spans.find(
        (s) => s.service === 'gateway' && s.kind === SERVER && !s.parentSpanId && receiver.spans.some((o) => o.traceId === s.traceId && o.name.includes('ItemWithOwner')),
      );
      if (!root) await new Promise((r) => setTimeout(r, 200));
    }
    expect(root).toBeDefined();
    const trace = await receiver.trace(root!.traceId, (spans) => ['items', 'users'].every((sub) => spans.some((s) => s.service === sub && isMongo(s))));
    expect(new Set(trace.map((s) => s.service))).toEqual(new Set(['gateway', 'items', 'users']));
    for (const span of trace.filter((s) => s !== root)) expect(ancestors(span, trace)).toContain(root);
    expectSubgraphUnderGateway(trace, 'items');
    expectSubgraphUnderGateway(trace, 'users');
  });

  it('when a GraphQL client sends an unsampled traceparent, then the trusting gateway follows it and exports nothing for that trace', async () => {
    const traceId = hex(16);
    const response = await http.post(`${system.urls.gateway}/graphql`, {
      token,
      headers: { traceparent: `00-${traceId}-${hex(8)}-00` },
      json: { operationName: 'Unsampled', query: `query Unsampled { item(id: "${itemId}") { id } }` },
    });
    expect(response.status).toBe(200);
    // A sampled request sent after it is exported; by then the unsampled one would have been too.
    const probe = hex(16);
    await http.post(`${system.urls.gateway}/graphql`, {
      token,
      headers: { traceparent: `00-${probe}-${hex(8)}-01` },
      json: { operationName: 'Sampled', query: `query Sampled { item(id: "${itemId}") { id } }` },
    });
    expect((await receiver.trace(probe, (spans) => spans.some((s) => s.service === 'items'))).length).toBeGreaterThan(0);
    expect(receiver.spans.filter((s) => s.traceId === traceId)).toEqual([]);
  });
});
