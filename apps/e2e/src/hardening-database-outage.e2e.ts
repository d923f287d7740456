/**
 * The database going away and coming back: an own FerretDB under own items and posts subgraphs, gateway and REST
 * facade (the shared users and auth subgraphs behind them), so killing it disturbs no other test file. While it is
 * down, reads and writes answer 503 with Retry-After (REST) and SERVICE_UNAVAILABLE (GraphQL), never 500 and never
 * driver text; once it is back, the same requests succeed without restarting anything. The gateway's subgraph
 * deadline is set well above the driver's server-selection timeout (5 s), so what answers is the subgraph's own
 * classification of the driver's error, not the gateway giving up.
 */
import { join } from 'node:path';
import { makeTempDir, type ManagedProcess } from '@platform/dev-stack';
import { errorCodes, http, startExtraApp, startSuiteFerretDb, testStack, type SuiteFerretDb } from '@platform/testing';
import { ADMIN, issueTokens } from './test/accounts';

jest.setTimeout(180_000);

const stack = testStack();
/** A real account's token: the gateway refuses tokens of users the users subgraph does not know (ADR 0011). */
let token: string;

describe('the database down and back', () => {
  const dir = makeTempDir('database-outage-');
  const dataDir = join(dir.path, 'ferretdb');
  let ferret: SuiteFerretDb;
  const processes: ManagedProcess[] = [];
  let restUrl: string;
  let gatewayUrl: string;

  const start = async (name: 'items' | 'posts' | 'gateway' | 'rest', env: Record<string, string>) => {
    const { process, url } = await startExtraApp(name, env, dir.path);
    processes.push(process);
    return url;
  };

  beforeAll(async () => {
    token = (await issueTokens(stack.restUrl, ADMIN.username, ADMIN.password)).access_token;
    ferret = await startSuiteFerretDb({ dataDir, logFile: join(dir.path, 'ferretdb.log') });
    const items = await start('items', { MONGO_URL: ferret.url });
    const posts = await start('posts', { MONGO_URL: ferret.url });
    gatewayUrl = `${await start('gateway', {
      SUBGRAPH_TIMEOUT_MS: '20000',
      RATE_LIMIT_POINTS: '100000',
      USERS_SUBGRAPH_URL: `${stack.urls['users']}/graphql`,
      AUTH_SUBGRAPH_URL: `${stack.urls['auth']}/graphql`,
      ITEMS_SUBGRAPH_URL: `${items}/graphql`,
      POSTS_SUBGRAPH_URL: `${posts}/graphql`,
    })}/graphql`;
    restUrl = await start('rest', {
      GATEWAY_URL: gatewayUrl,
      GATEWAY_TIMEOUT_MS: '25000',
      RATE_LIMIT_POINTS: '100000',
    });
  }, 120_000);

  afterAll(async () => {
    for (const proc of processes.reverse()) await proc.stop();
    await ferret?.process.stop();
    dir.remove();
  }, 60_000);

  const calls = () => ({
    createItem: http.post(`${restUrl}/items/`, { token, json: { name: 'outage', price: 1 } }),
    listItems: http.get(`${restUrl}/items/`, { token }),
    listPosts: http.get(`${restUrl}/posts`, { token }),
    createPost: http.post(`${restUrl}/posts`, { token, json: { title: 'outage', body: 'b' } }),
  });

  it('when FerretDB is killed, then reads and writes answer 503 with Retry-After, and 2xx again once it is back', async () => {
    const before = calls();
    expect((await before.createItem).status).toBe(201);
    expect((await before.listItems).status).toBe(200);
    expect((await before.createPost).status).toBe(201);
    expect((await before.listPosts).status).toBe(200);

    await ferret.process.stop('SIGKILL');

    const during = calls();
    const graphql = http.graphql(gatewayUrl, '{ posts { totalCount } items { totalCount } }', {}, { token });
    const answers = await Promise.all(Object.values(during));
    for (const answer of answers) {
      expect({ status: answer.status, text: answer.text }).toEqual({ status: 503, text: expect.any(String) });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(answer.text).not.toMatch(/Mongo|ECONNREFUSED|127\.0\.0\.1|selection|stack/i);
    }
    const viaGateway = await graphql;
    expect(errorCodes(viaGateway.body)).toEqual(['SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE']);
    expect(viaGateway.text).not.toMatch(/Mongo|ECONNREFUSED|127\.0\.0\.1/);

    ferret = await startSuiteFerretDb({
      dataDir,
      port: ferret.port,
      postgresUrl: ferret.postgresUrl,
      logFile: join(dir.path, 'ferretdb.log'),
    });

    const deadline = Date.now() + 60_000;
    let recovered = (await http.get(`${restUrl}/items/`, { token })).status;
    while (recovered !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      recovered = (await http.get(`${restUrl}/items/`, { token })).status;
    }
    expect(recovered).toBe(200);
    const after = calls();
    expect((await after.createItem).status).toBe(201);
    expect((await after.listItems).status).toBe(200);
    expect((await after.createPost).status).toBe(201);
    expect((await after.listPosts).status).toBe(200);
    expect(errorCodes((await http.graphql(gatewayUrl, '{ posts { totalCount } }', {}, { token })).body)).toEqual(
      [],
    );
  });
});
