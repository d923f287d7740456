/**
 * Deadlines end the work (issue 24 item 6, ADR 0020), over real processes on FerretDB: the probes of the issue with the
 * deadline made short enough that the shared test database misses it under load. Two embedded facades (replicas) with
 * SUBGRAPH_TIMEOUT_MS=300 call the shared stack's subgraphs, which get the deadline in a header and start no write after
 * it. Every write answered 2xx is the one that stands, and none answered with an error that invites a retry (503 or
 * 409 with Retry-After) commits later; an outcome still unknown at the deadline plus the commit bound is 504
 * OUTCOME_UNKNOWN without Retry-After, and its real outcome is kept for its Idempotency-Key.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { freePort } from '@platform/dev-stack';
import { http, stackSubgraphUrls, suiteApps, type ExtraApp, type HttpResponse } from '@platform/testing';
import { member, rest, stack, unique, type Member } from './test/resources-support';

jest.setTimeout(180_000);

const DEADLINE_MS = 300;
const COMMIT_MS = 300;
/** The longest a write may take to end once answered: its deadline and two commit bounds (a claim's settledBy), and some. */
const SETTLED_MS = DEADLINE_MS + 2 * COMMIT_MS + 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const embeddedFacade = (env: Record<string, string> = {}) => ({
  GATEWAY_MODE: 'embedded',
  ...stackSubgraphUrls(),
  REDIS_URL: stack.redisUrl,
  READ_CACHE: 'off',
  RATE_LIMIT_POINTS: '1000000',
  SUBGRAPH_TIMEOUT_MS: String(DEADLINE_MS),
  WRITE_COMMIT_TIMEOUT_MS: String(COMMIT_MS),
  ...env,
});

/** Statuses that invite a retry: nothing of the request may have been committed, now or later. */
const invitesRetry = (response: HttpResponse) => response.headers.get('retry-after') !== null;

function expectHonestErrors(responses: HttpResponse[], success: number): void {
  for (const response of responses) {
    if (response.status === success) continue;
    if (response.status === 504) {
      expect(response.text).toMatch(/may or may not have been made/);
      expect(response.headers.get('retry-after')).toBeNull();
    } else {
      // 503 (nothing changed) or 409 (being changed by others): both say so with Retry-After.
      expect(`${response.status} retry-after=${invitesRetry(response)} ${response.text.slice(0, 200)}`).toMatch(
        /^(409|503) retry-after=true /,
      );
    }
  }
}

describe('writes end at their deadline', () => {
  const apps = suiteApps('write-deadlines-');
  let a: ExtraApp;
  let b: ExtraApp;
  let alice: Member;

  beforeAll(async () => {
    // One after the other: two embedded facades warming their plans at once on the shared machine start slowly.
    a = await apps.start('rest', embeddedFacade());
    b = await apps.start('rest', embeddedFacade());
    alice = await member('deadline');
  }, 120_000);

  it('when 100 creates by one user race past the deadline, then every 201 exists and no refusal commits later', async () => {
    const name = `burst-${unique()}`;
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        http.post(`${(i % 2 === 0 ? a : b).url}/items/`, { token: alice.token, json: { name, price: 1 + i } }),
      ),
    );
    expectHonestErrors(responses, 201);
    const created = responses.filter((r) => r.status === 201).map((r) => r.body.id as number);
    const unknown = responses.filter((r) => r.status === 504).length;
    await sleep(SETTLED_MS);
    const listed = (await http.get(rest(`/items/?name=${name}&limit=1000`), { token: alice.token })).body as Array<{
      id: number;
    }>;
    const ids = listed.map((item) => item.id);
    for (const id of created) expect(ids).toContain(id);
    // Only a 504 may have committed without a 201; a 503 or 409 never.
    expect(ids.length).toBeGreaterThanOrEqual(created.length);
    expect(ids.length).toBeLessThanOrEqual(created.length + unknown);
  });

  it('when 20 unconditional PATCHes of one item race over two replicas, then the acknowledged ones are its versions and the last acknowledged stands', async () => {
    const item = (await http.post(rest('/items/'), { token: alice.token, json: { name: `race-${unique()}`, price: 1 } }))
      .body as { id: number };
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        http.patch(`${(i % 2 === 0 ? a : b).url}/items/${item.id}`, {
          token: alice.token,
          json: { price: 100 + i },
        }),
      ),
    );
    expectHonestErrors(responses, 200);
    const acknowledged = responses
      .filter((r) => r.status === 200)
      .map((r) => ({ price: r.body.price as number, version: Number(/^"(\d+)\./.exec(r.headers.get('etag')!)![1]) }));
    const unknown = responses.filter((r) => r.status === 504).length;
    // Each acknowledged write is its own version.
    expect(new Set(acknowledged.map((w) => w.version)).size).toBe(acknowledged.length);
    await sleep(SETTLED_MS);
    const final = await http.get(rest(`/items/${item.id}`), { token: alice.token });
    const version = Number(/^"(\d+)\./.exec(final.headers.get('etag')!)![1]);
    // Every committed write moved the version once: the acknowledged ones, and at most the unknown ones besides.
    expect(version).toBeGreaterThanOrEqual(acknowledged.length);
    expect(version).toBeLessThanOrEqual(acknowledged.length + unknown);
    if (unknown === 0 && acknowledged.length > 0) {
      const last = acknowledged.reduce((x, y) => (y.version > x.version ? y : x));
      expect({ version, price: final.body.price }).toEqual({ version: last.version, price: last.price });
    }
  });
});

/**
 * A subgraph that answers late: a proxy in front of the shared items subgraph holds every answer `delayMs` (the write
 * itself happens at once), as a subgraph stalled past the deadline would.
 */
async function slowProxy(target: string, delayMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const forwarded = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          setTimeout(() => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(chunks));
          }, delayMs);
        });
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a write whose subgraph answers after the deadline and the commit bound', () => {
  const apps = suiteApps('write-late-');
  // A deadline the subgraph meets even on a loaded machine (the insert itself happens at once); the proxy holds the
  // answer past the facade's answer to its client (the credential check's 2 s, then 2 s + 0.5 s + 1.5 s).
  const LATE_DEADLINE_MS = 2_000;
  const LATE_COMMIT_MS = 500;
  const DELAY_MS = 9_000;
  let proxy: Awaited<ReturnType<typeof slowProxy>>;
  let facade: ExtraApp;
  let alice: Member;

  beforeAll(async () => {
    proxy = await slowProxy(`${stack.urls['items']}/graphql`, DELAY_MS);
    facade = await apps.start(
      'rest',
      embeddedFacade({
        ITEMS_SUBGRAPH_URL: proxy.url,
        SUBGRAPH_TIMEOUT_MS: String(LATE_DEADLINE_MS),
        WRITE_COMMIT_TIMEOUT_MS: String(LATE_COMMIT_MS),
      }),
    );
    alice = await member('late');
  }, 120_000);

  afterAll(() => proxy?.close());

  it('when a keyed create is answered 504 OUTCOME_UNKNOWN, then a retry with the key waits (409) and then replays the real 201: one item', async () => {
    const key = `late-${unique()}`;
    const name = `late-${unique()}`;
    const create = () =>
      http.post(`${facade.url}/items/`, {
        token: alice.token,
        json: { name, price: 4 },
        headers: { 'idempotency-key': key },
      });
    const began = Date.now();
    const first = await create();
    expect(first.status).toBe(504);
    expect(first.headers.get('retry-after')).toBeNull();
    expect(Date.now() - began).toBeLessThan(DELAY_MS);
    // The write may still be under way: the key is in progress, not free to run the create again.
    const meanwhile = await create();
    expect(meanwhile.status).toBe(409);
    await sleep(DELAY_MS);
    const replay = await create();
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const listed = (await http.get(rest(`/items/?name=${name}&limit=1000`), { token: alice.token })).body as Array<{
      id: number;
    }>;
    expect(listed.map((item) => item.id)).toEqual([replay.body.id]);
  });
});
