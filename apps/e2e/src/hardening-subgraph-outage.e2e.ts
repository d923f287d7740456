/**
 * A subgraph that hangs or stops: an own gateway (SUBGRAPH_TIMEOUT_MS=2500) and REST facade over an own users
 * subgraph, a never-answering "items" subgraph and the shared auth and posts subgraphs. What needs the sick subgraph
 * is a 503 with Retry-After (REST) or SERVICE_UNAVAILABLE (GraphQL) within the timeout; everything else is unaffected.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { ALL_SCOPES, signAccessToken } from '@platform/auth';
import { freePort, makeTempDir, type ManagedProcess } from '@platform/dev-stack';
import { errorCodes, unique, http, startExtraApp, testStack } from '@platform/testing';

const stack = testStack();
// Long enough that a loaded CI machine answers a healthy subgraph well within it (the "unaffected" check), short
// enough for the hanging cases to stay quick.
const SUBGRAPH_TIMEOUT_MS = 2_500;
const WRITE_COMMIT_TIMEOUT_MS = 500;
/** A mutation is waited for past the deadline by the commit bound and 1.5 s of slack (ADR 0020). */
const MUTATION_WAIT_MS = SUBGRAPH_TIMEOUT_MS + WRITE_COMMIT_TIMEOUT_MS + 1_500;
const token = signAccessToken(
  { sub: 'admin', uid: null, role: 'admin', scopes: [...ALL_SCOPES], kind: 'user' },
  stack.jwtSecret,
  600,
);

async function timed<T>(call: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const began = performance.now();
  const result = await call();
  return { result, ms: performance.now() - began };
}

describe('a hanging or stopped subgraph', () => {
  const dir = makeTempDir('subgraph-outage-');
  const sockets = new Set<Socket>();
  let hanging: Server;
  let users: ManagedProcess;
  let gateway: ManagedProcess;
  let rest: ManagedProcess;
  let gatewayUrl: string;
  let restUrl: string;

  const start = async (name: 'users' | 'gateway' | 'rest', env: Record<string, string>) => {
    const { process, url } = await startExtraApp(name, env, dir.path);
    return { proc: process, base: url };
  };

  beforeAll(async () => {
    // Accepts connections and never answers: a subgraph stuck in a slow query.
    hanging = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    const hangingPort = await freePort();
    await new Promise<void>((resolve) => hanging.listen(hangingPort, '127.0.0.1', resolve));

    const ownUsers = await start('users', {
      MONGO_URL: stack.mongoUrl,
      MONGO_DB: `api_users_outage_${unique()}`,
      AUTH_SUBGRAPH_URL: `${stack.urls['auth']}/graphql`,
      ITEMS_SUBGRAPH_URL: `http://127.0.0.1:${hangingPort}/graphql`,
      POSTS_SUBGRAPH_URL: `${stack.urls['posts']}/graphql`,
    });
    users = ownUsers.proc;
    const ownGateway = await start('gateway', {
      SUBGRAPH_TIMEOUT_MS: String(SUBGRAPH_TIMEOUT_MS),
      WRITE_COMMIT_TIMEOUT_MS: String(WRITE_COMMIT_TIMEOUT_MS),
      USERS_SUBGRAPH_URL: `${ownUsers.base}/graphql`,
      ITEMS_SUBGRAPH_URL: `http://127.0.0.1:${hangingPort}/graphql`,
      AUTH_SUBGRAPH_URL: `${stack.urls['auth']}/graphql`,
      POSTS_SUBGRAPH_URL: `${stack.urls['posts']}/graphql`,
      RATE_LIMIT_POINTS: '100000',
    });
    gateway = ownGateway.proc;
    gatewayUrl = `${ownGateway.base}/graphql`;
    const ownRest = await start('rest', { GATEWAY_URL: gatewayUrl, RATE_LIMIT_POINTS: '100000' });
    rest = ownRest.proc;
    restUrl = ownRest.base;
  }, 90_000);

  afterAll(async () => {
    await rest?.stop();
    await gateway?.stop();
    await users?.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => (hanging ? hanging.close(() => resolve()) : resolve()));
    dir.remove();
  }, 30_000);

  it('when a subgraph never answers, then GraphQL reports SERVICE_UNAVAILABLE within the timeout and REST answers 503 with Retry-After', async () => {
    const graphql = await timed(() =>
      http.graphql(gatewayUrl, '{ item(id: "1") { id name } }', {}, { token }),
    );
    expect(errorCodes(graphql.result.body)).toEqual(['SERVICE_UNAVAILABLE']);
    expect(graphql.result.body.errors[0].message).toBe('Service temporarily unavailable');
    expect(graphql.ms).toBeGreaterThanOrEqual(SUBGRAPH_TIMEOUT_MS - 50);
    expect(graphql.ms).toBeLessThan(SUBGRAPH_TIMEOUT_MS + 1_500);

    const viaRest = await timed(() => http.get(`${restUrl}/items/1`, { token }));
    expect(viaRest.result.status).toBe(503);
    expect(Number(viaRest.result.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(viaRest.result.text).not.toMatch(/items|127\.0\.0\.1|timeout/i);
    expect(viaRest.ms).toBeLessThan(SUBGRAPH_TIMEOUT_MS + 1_500);
  });

  it('when a subgraph never answers a mutation, then its outcome is unknown: OUTCOME_UNKNOWN after the deadline and the commit bound, REST 504 without Retry-After', async () => {
    const graphql = await timed(() =>
      http.graphql(gatewayUrl, 'mutation { updateItem(id: "1", input: { name: "x" }) { id } }', {}, { token }),
    );
    expect(errorCodes(graphql.result.body)).toEqual(['OUTCOME_UNKNOWN']);
    expect(graphql.ms).toBeGreaterThanOrEqual(MUTATION_WAIT_MS - 50);
    expect(graphql.ms).toBeLessThan(MUTATION_WAIT_MS + 1_500);

    const viaRest = await timed(() => http.patch(`${restUrl}/items/1`, { token, json: { name: 'x' } }));
    expect(viaRest.result.status).toBe(504);
    expect(viaRest.result.headers.get('retry-after')).toBeNull();
    expect(viaRest.result.text).toMatch(/may or may not have been made/);
    expect(viaRest.result.text).not.toMatch(/items|127\.0\.0\.1|timeout/i);
  });

  it('when one subgraph hangs, then operations on the others are unaffected', async () => {
    const user = await timed(() => http.get(`${restUrl}/users/1`, { token }));
    expect([200, 404]).toContain(user.result.status);
    expect(user.ms).toBeLessThan(SUBGRAPH_TIMEOUT_MS);
    const post = await http.graphql(gatewayUrl, '{ post(id: "1") { id title } }', {}, { token });
    expect(errorCodes(post.body)).not.toContain('SERVICE_UNAVAILABLE');
  });

  it('when a subgraph is stopped, then the routes that need it answer 503 at once and the others keep working', async () => {
    await users.stop();
    const graphql = await timed(() =>
      http.graphql(gatewayUrl, '{ user(id: "1") { id username } }', {}, { token }),
    );
    expect(errorCodes(graphql.result.body)).toEqual(['SERVICE_UNAVAILABLE']);
    expect(graphql.ms).toBeLessThan(1_500);

    const viaRest = await timed(() => http.get(`${restUrl}/users/1`, { token }));
    expect(viaRest.result.status).toBe(503);
    expect(viaRest.result.headers.get('retry-after')).toBeTruthy();
    expect(viaRest.ms).toBeLessThan(1_500);

    const posts = await http.get(`${restUrl}/posts/1`, { token });
    expect(posts.status).not.toBe(503);
    expect(posts.status).toBeLessThan(500);

    // Nothing reached a stopped subgraph, so a write there changed nothing: 503 with Retry-After, at once.
    const write = await timed(() => http.patch(`${restUrl}/users/1`, { token, json: { full_name: 'x' } }));
    expect(write.result.status).toBe(503);
    expect(write.result.headers.get('retry-after')).toBeTruthy();
    expect(write.ms).toBeLessThan(1_500);
  });
});
