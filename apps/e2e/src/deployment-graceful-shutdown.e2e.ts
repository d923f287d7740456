/**
 * Graceful shutdown under load (libs/service run-service.ts, the one owner of SIGTERM), for the two processes a load
 * balancer fronts and for a subgraph (what the gateway and the embedded facade call), as production runs them.
 *
 * Set-up: a system of its own (startSystem on free ports, the shared FerretDB with databases of its own), in production
 * mode (`NODE_ENV=production` with generated JWT_SECRET and SUBGRAPH_SECRET, the facade in its default embedded mode):
 * Apollo Server stops itself on SIGTERM outside NODE_ENV=test and then re-sends the signal, so a test mode run cannot
 * see whether each process leaves the signal to the service runtime. Load:
 * WORKERS kept-alive connections (one undici Client each, no pipelining), each sending authenticated reads back
 * to back; beside them a health checker polls /readyz on its own kept-alive connection, as a load balancer does.
 * Then SIGTERM goes to the process under test while the load runs.
 *
 * A load balancer keeps using a connection it already holds until the server closes it, and opens no new one
 * to an instance whose readiness is false. So each worker keeps sending on its connection until a response says
 * `Connection: close` (the process closing that connection), then stops; it never opens a second connection.
 *
 * Asserted: every request sent got a complete 2xx answer with the expected body (no failed request, no reset,
 * no refused connection), requests were in flight when the signal was sent, every worker ended on the process's
 * `Connection: close`, readiness answered 200 before the drain and 503 once draining, the process exited on
 * its own with code 0 within the grace period (SHUTDOWN_TIMEOUT_MS) rather than being killed, and its log has the
 * runtime's shutdown lines (signal received, draining, stopped).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'undici';
import { signAccessToken } from '@platform/auth';
import {
  makeTempDir,
  productionMode,
  startSystem,
  type AppName,
  type RunningSystem,
} from '@platform/dev-stack';
import { http, testStack } from '@platform/testing';

const stack = testStack();
const WORKERS = 8;
const WARM_UP_REQUESTS = 200;
const MAX_LOAD_MS = 20_000;
const SHUTDOWN_TIMEOUT_MS = 10_000;

interface Outcome {
  sent: number;
  ok: number;
  failures: string[];
  inFlightAtSignal: number;
  completedAfterSignal: number;
  workersClosedByServer: number;
  readinessBefore: number[];
  readinessAfter: number[];
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  exitMs: number;
}

type Send = (client: Client) => Promise<{ status: number; body: string; connectionClose: boolean }>;

/** Sends `request` on the worker's connection: its status, its whole body, and whether the server closed it. */
const sending =
  (request: Parameters<Client['request']>[0]): Send =>
  async (client) => {
    const response = await client.request(request);
    return {
      status: response.statusCode,
      body: await response.body.text(),
      connectionClose: response.headers['connection'] === 'close',
    };
  };

async function runLoadAndTerminate(
  system: RunningSystem,
  app: AppName,
  send: Send,
  expectBody: (body: string) => boolean,
): Promise<Outcome> {
  const proc = system.processes.get(app)!;
  const origin = system.urls[app];
  const outcome: Outcome = {
    sent: 0,
    ok: 0,
    failures: [],
    inFlightAtSignal: 0,
    completedAfterSignal: 0,
    workersClosedByServer: 0,
    readinessBefore: [],
    readinessAfter: [],
    exitCode: null,
    exitSignal: null,
    exitMs: 0,
  };
  let inFlight = 0;
  let signalled = false;
  const deadline = Date.now() + MAX_LOAD_MS;

  const worker = async () => {
    const client = new Client(origin, { pipelining: 1, keepAliveTimeout: 30_000 });
    try {
      while (Date.now() < deadline) {
        outcome.sent += 1;
        inFlight += 1;
        try {
          const response = await send(client);
          if (response.status >= 200 && response.status < 300 && expectBody(response.body)) outcome.ok += 1;
          else outcome.failures.push(`HTTP ${response.status}: ${response.body.slice(0, 200)}`);
          if (signalled) outcome.completedAfterSignal += 1;
          if (response.connectionClose) {
            outcome.workersClosedByServer += 1;
            return;
          }
        } catch (error) {
          outcome.failures.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
          return;
        } finally {
          inFlight -= 1;
        }
      }
    } finally {
      await client.close().catch(() => undefined);
    }
  };

  const healthChecker = async () => {
    const client = new Client(origin, { pipelining: 1, keepAliveTimeout: 30_000 });
    try {
      while (Date.now() < deadline) {
        const response = await client.request({ method: 'GET', path: '/readyz' });
        await response.body.text();
        (signalled ? outcome.readinessAfter : outcome.readinessBefore).push(response.statusCode);
        if (response.headers['connection'] === 'close') return;
        await new Promise((r) => setTimeout(r, 50));
      }
    } catch (error) {
      outcome.failures.push(`readyz: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await client.close().catch(() => undefined);
    }
  };

  const load = [...Array.from({ length: WORKERS }, () => worker()), healthChecker()];
  while (outcome.ok < WARM_UP_REQUESTS && outcome.failures.length === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  outcome.inFlightAtSignal = inFlight;
  const signalledAt = Date.now();
  signalled = true;
  proc.child.kill('SIGTERM');
  await Promise.all(load);
  await proc.exited;
  outcome.exitMs = Date.now() - signalledAt;
  outcome.exitCode = proc.child.exitCode;
  outcome.exitSignal = proc.child.signalCode;
  return outcome;
}

describe('graceful shutdown under load (deployment)', () => {
  const suffix = randomBytes(4).toString('hex');
  const temp = makeTempDir('deployment-shutdown-');
  const jwtSecret = randomBytes(48).toString('base64url');
  let system: RunningSystem;
  const subgraphSecret = randomBytes(48).toString('base64url');
  let token: string;
  let userId: number;
  let username: string;
  let itemId: number;

  beforeAll(async () => {
    system = await startSystem({
      rootDir: stack.rootDir,
      mongoUrl: stack.mongoUrl,
      jwtSecret,
      freePorts: true,
      logDir: temp.path,
      env: {
        ...productionMode(subgraphSecret),
        // The shutdown lines are info lines; the access log stays quiet.
        LOG_LEVEL: 'info',
        DATA_DIR: temp.path,
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
        RATE_LIMIT_POINTS: '10000000',
        LOGIN_RATE_LIMIT_POINTS: '10000000',
      },
      envFor: Object.fromEntries(
        (['users', 'items', 'auth', 'posts'] as const).map((name) => [
          name,
          { MONGO_DB: `deploy_${suffix}_${name}` },
        ]),
      ),
    });
    username = `drain${suffix}`;
    const created = await http.post(`${system.urls.rest}/users/`, {
      json: { username, email: `${username}@example.com`, password: 'drain-password-1' },
    });
    expect(created.status).toBe(201);
    userId = created.body.id as number;
    token = signAccessToken(
      {
        sub: username,
        uid: userId,
        role: 'member',
        scopes: ['users:read', 'items:read', 'items:write'],
        kind: 'user',
      },
      jwtSecret,
      600,
    );
    const item = await http.post(`${system.urls.rest}/items/`, {
      token,
      json: { name: `drain-${suffix}`, price: 1 },
    });
    expect(item.status).toBe(201);
    itemId = item.body.id as number;
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    temp.remove();
  });

  it('when rest gets SIGTERM under keep-alive load, then every request sent succeeds, readiness turns 503 and it exits 0', async () => {
    const outcome = await runLoadAndTerminate(
      system,
      'rest',
      sending({ method: 'GET', path: `/users/${userId}`, headers: { authorization: `Bearer ${token}` } }),
      (body) => (JSON.parse(body) as { username?: string }).username === username,
    );
    expectCleanDrain(outcome);
    expectShutdownLog(temp.path, 'rest');
  }, 60_000);

  /** A GraphQL read sent to `/graphql` with the member's token, and whether the answer names what it should. */
  const graphqlLoad = (
    query: string,
    variables: Record<string, string>,
    extraHeaders: Record<string, string> = {},
  ) =>
    sending({
      method: 'POST',
      path: '/graphql',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...extraHeaders },
      body: JSON.stringify({ query, variables }),
    });
  const answered =
    (field: 'user' | 'item', key: 'username' | 'name', expected: () => string) => (body: string) => {
      const parsed = JSON.parse(body) as {
        data?: Record<string, Record<string, string> | undefined>;
        errors?: unknown;
      };
      return parsed.errors === undefined && parsed.data?.[field]?.[key] === expected();
    };

  it('when gateway gets SIGTERM under keep-alive load, then every request sent succeeds, readiness turns 503 and it exits 0', async () => {
    const outcome = await runLoadAndTerminate(
      system,
      'gateway',
      graphqlLoad('query ($id: ID!) { user(id: $id) { id username } }', { id: String(userId) }),
      answered('user', 'username', () => username),
    );
    expectCleanDrain(outcome);
    expectShutdownLog(temp.path, 'gateway');
  }, 60_000);

  it('when a subgraph (items) gets SIGTERM under keep-alive load, then every request sent succeeds, readiness turns 503 and it exits 0', async () => {
    const outcome = await runLoadAndTerminate(
      system,
      'items',
      graphqlLoad(
        'query ($id: ID!) { item(id: $id) { id name } }',
        { id: String(itemId) },
        { 'x-subgraph-secret': subgraphSecret },
      ),
      answered('item', 'name', () => `drain-${suffix}`),
    );
    expectCleanDrain(outcome);
    expectShutdownLog(temp.path, 'items');
  }, 60_000);
});

/**
 * The service runtime's own lines, in the order of their timestamps (stdout and stderr share the log file, so the
 * file's order may interleave them): it, not a library, handled the signal and finished the drain.
 */
function expectShutdownLog(logDir: string, app: AppName): void {
  const messages = readFileSync(join(logDir, `${app}.log`), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; time?: string | number })
    .map((entry, index) => ({ ...entry, at: new Date(entry.time ?? 0).getTime(), index }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map((entry) => entry.msg);
  const expected = ['signal received', `${app} draining`, `${app} stopped`];
  expect(messages.filter((message) => message !== undefined && expected.includes(message))).toEqual(expected);
}

function expectCleanDrain(outcome: Outcome): void {
  expect(outcome.failures).toEqual([]);
  expect(outcome.ok).toBe(outcome.sent);
  expect(outcome.ok).toBeGreaterThanOrEqual(WARM_UP_REQUESTS);
  expect(outcome.inFlightAtSignal).toBeGreaterThan(0);
  expect(outcome.completedAfterSignal).toBeGreaterThanOrEqual(outcome.inFlightAtSignal);
  expect(outcome.workersClosedByServer).toBe(WORKERS);
  expect(outcome.readinessBefore.length).toBeGreaterThan(0);
  expect(new Set(outcome.readinessBefore)).toEqual(new Set([200]));
  expect(outcome.readinessAfter.at(-1)).toBe(503);
  expect(outcome.exitSignal).toBeNull();
  expect(outcome.exitCode).toBe(0);
  expect(outcome.exitMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
}
