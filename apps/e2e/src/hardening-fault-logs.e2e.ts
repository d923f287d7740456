/**
 * Every 5xx is logged with its cause: an "items" subgraph whose schema disagrees with the supergraph (it refuses the
 * gateway's fetch 400 GRAPHQL_VALIDATION_FAILED) behind an own gateway and an own embedded facade. The answers stay
 * generic; each process's log holds an error line with the request id and the cause (the subgraph's refusal).
 */
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_SCOPES, signAccessToken } from '@platform/auth';
import { freePort } from '@platform/dev-stack';
import { errorCodes, http, stackSubgraphUrls, suiteApps, testStack, type ExtraApp } from '@platform/testing';
import { waitFor } from './test/events-support';

const stack = testStack();
const token = signAccessToken(
  { sub: 'admin', uid: null, role: 'admin', scopes: [...ALL_SCOPES], kind: 'user' },
  stack.jwtSecret,
  600,
);
const DRIFT = 'Cannot query field "driftedField" on type "Item".';

interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  err?: { message?: string; stack?: string };
}

const logLines = (dir: string, app: string): LogLine[] =>
  readFileSync(join(dir, `${app}.log`), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

describe('a 5xx is logged with its cause', () => {
  const apps = suiteApps('fault-logs-');
  let drifted: Server;
  let gateway: ExtraApp;
  let facade: ExtraApp;

  beforeAll(async () => {
    drifted = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ errors: [{ message: DRIFT, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] }));
      });
    });
    const port = await freePort();
    await new Promise<void>((resolve) => drifted.listen(port, '127.0.0.1', resolve));
    const urls = stackSubgraphUrls({ items: `http://127.0.0.1:${port}/graphql` });
    gateway = await apps.start('gateway', { ...urls, RATE_LIMIT_POINTS: '100000' });
    facade = await apps.start('rest', { ...urls, GATEWAY_MODE: 'embedded', RATE_LIMIT_POINTS: '100000' });
  }, 90_000);

  afterAll(() => new Promise<void>((resolve) => drifted.close(() => resolve())));

  it('when the gateway cannot read a subgraph, then the answer is a generic INTERNAL_SERVER_ERROR and its log holds the cause', async () => {
    const requestId = `fault-gw-${Date.now()}`;
    const answer = await http.graphql(`${gateway.url}/graphql`, '{ item(id: "1") { id name } }', {}, {
      token,
      headers: { 'x-request-id': requestId },
    });
    expect(errorCodes(answer.body)).toEqual(['INTERNAL_SERVER_ERROR']);
    expect(answer.text).not.toContain('driftedField');
    const line = await waitFor(
      async () => logLines(apps.dir.path, 'gateway').find((l) => l.requestId === requestId && l.level >= 50),
      15_000,
      "the gateway's error line",
    );
    expect(line.msg).toBe('request failed');
    expect(line.err?.message).toBe('400: Bad Request');
    expect(JSON.stringify(line.err)).toContain('driftedField');
    expect(line.err?.stack).toContain('GraphQLError');
  });

  it('when the embedded facade cannot read a subgraph, then REST answers a generic 500 and its log holds the cause', async () => {
    const requestId = `fault-rest-${Date.now()}`;
    const answer = await http.get(`${facade.url}/items/1`, { token, headers: { 'x-request-id': requestId } });
    expect(answer.status).toBe(500);
    expect(answer.text).not.toContain('driftedField');
    const line = await waitFor(
      async () =>
        logLines(apps.dir.path, 'rest').find(
          (l) => l.requestId === requestId && l.level >= 50 && JSON.stringify(l.err).includes('driftedField'),
        ),
      15_000,
      "the facade's error line with the cause",
    );
    expect(line.err?.message).toBe('400: Bad Request');
  });
});
