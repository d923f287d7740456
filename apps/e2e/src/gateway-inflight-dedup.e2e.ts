/**
 * Identical subgraph reads in flight share one fetch (SUBGRAPH_DEDUP), per caller; the fetch on its way only within one
 * read-cache generation, and without a generation only the next fetch: an own gateway over an own users subgraph (on the stack's users database and Redis, so the stack's
 * accounts and tokens are real there), read cache on. Each race follows a write, so its reads miss the cache together. The users subgraph is
 * paused (SIGSTOP) while the reads arrive, so they are all in flight at once whatever the machine's speed; the gateway's
 * dedup counter says when they are, then the subgraph resumes and its own request counter says how many it served.
 */
import {
  freePort,
  makeTempDir,
  parsePrometheusText,
  samplesOf,
  type ManagedProcess,
} from '@platform/dev-stack';
import { http, startExtraApp, testStack } from '@platform/testing';
import { issueTokens, registerAccount } from './test/accounts';

const stack = testStack();
const READ_USER = 'query ReadUser($id: ID!) { user(id: $id) { id username email } }';
const TOUCH_USER =
  'mutation TouchUser($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { id } }';

interface Started {
  proc: ManagedProcess;
  base: string;
  metrics: string;
}

describe('identical subgraph reads in flight', () => {
  const dir = makeTempDir('inflight-dedup-');
  let users: Started;
  let gateway: Started;
  /** The same gateway with the read cache off: no generation, so no read may join another's fetch. */
  let uncached: Started;

  const start = async (
    name: 'users' | 'gateway',
    env: Record<string, string>,
    logName?: string,
  ): Promise<Started> => {
    const metricsPort = await freePort();
    const { process: proc, url: base } = await startExtraApp(
      name,
      { METRICS_PORT: String(metricsPort), ...env },
      dir.path,
      logName,
    );
    return { proc, base, metrics: `http://127.0.0.1:${metricsPort}/metrics` };
  };

  /** The sum of a counter's samples whose labels match. */
  const counter = async (
    target: Started,
    name: string,
    labels: Record<string, string> = {},
    route?: RegExp,
  ) => {
    const text = await (await fetch(target.metrics)).text();
    return samplesOf(parsePrometheusText(text), name, labels)
      .filter((sample) => !route || route.test(sample.labels['route'] ?? ''))
      .reduce((sum, sample) => sum + sample.value, 0);
  };
  const subgraphReads = () => counter(users, 'http_server_requests_total', { method: 'POST' }, /^ReadUser/);
  const dedup = (result: 'sent' | 'merged', via: Started = gateway) =>
    counter(via, 'subgraph_inflight_reads_total', { upstream: 'users', result });

  /** Pauses the users subgraph, starts `reads`, waits (bounded) until the gateway holds `expected` of them, resumes. */
  async function whilePaused<T>(
    reads: () => Promise<T>[],
    expected: { sent: number; merged: number },
    via: Started = gateway,
  ): Promise<T[]> {
    const before = { sent: await dedup('sent', via), merged: await dedup('merged', via) };
    users.proc.child.kill('SIGSTOP');
    let pending: Promise<T[]>;
    try {
      pending = Promise.all(reads());
      const deadline = Date.now() + 30_000;
      for (;;) {
        const now = {
          sent: (await dedup('sent', via)) - before.sent,
          merged: (await dedup('merged', via)) - before.merged,
        };
        if (now.sent + now.merged >= expected.sent + expected.merged || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      users.proc.child.kill('SIGCONT');
    }
    return pending;
  }

  let owner: { id: number; token: string; narrowToken: string };
  let other: { token: string };

  beforeAll(async () => {
    users = await start('users', {
      MONGO_URL: stack.mongoUrl,
      REDIS_URL: stack.redisUrl,
      AUTH_SUBGRAPH_URL: `${stack.urls['auth']}/graphql`,
      ITEMS_SUBGRAPH_URL: `${stack.urls['items']}/graphql`,
      POSTS_SUBGRAPH_URL: `${stack.urls['posts']}/graphql`,
    });
    const gatewayEnv = {
      USERS_SUBGRAPH_URL: `${users.base}/graphql`,
      ITEMS_SUBGRAPH_URL: `${stack.urls['items']}/graphql`,
      AUTH_SUBGRAPH_URL: `${stack.urls['auth']}/graphql`,
      POSTS_SUBGRAPH_URL: `${stack.urls['posts']}/graphql`,
      // The paused subgraph must not time the reads out, nor the account checks expire while it is paused.
      SUBGRAPH_TIMEOUT_MS: '60000',
      TOKEN_STATUS_CACHE_TTL_MS: '10000',
      RATE_LIMIT_POINTS: '100000',
      REDIS_URL: stack.redisUrl,
    };
    gateway = await start('gateway', { ...gatewayEnv, READ_CACHE: 'on' });
    uncached = await start('gateway', { ...gatewayEnv, READ_CACHE: 'off' }, 'gateway-uncached');
    const a = await registerAccount(stack.restUrl, 'dedup');
    const b = await registerAccount(stack.restUrl, 'dedup');
    owner = {
      id: a.id,
      token: (await issueTokens(stack.restUrl, a.username, a.password)).access_token,
      narrowToken: (await issueTokens(stack.restUrl, a.username, a.password, 'items:read')).access_token,
    };
    other = { token: (await issueTokens(stack.restUrl, b.username, b.password)).access_token };
  }, 90_000);

  afterAll(async () => {
    users?.proc.child.kill('SIGCONT');
    await gateway?.proc.stop();
    await uncached?.proc.stop();
    await users?.proc.stop();
    dir.remove();
  }, 30_000);

  const read = (token: string, via: Started = gateway) =>
    http.graphql(`${via.base}/graphql`, READ_USER, { id: String(owner.id) }, { token });
  /**
   * One read per token first (each account check is cached before the subgraph is paused), then a write: the users
   * subgraph bumps its generation, so the race's reads all miss the cache under the same new generation.
   */
  let touches = 0;
  const warm = async (tokens: string[], via: Started = gateway) => {
    for (const token of tokens) expect((await read(token, via)).status).toBe(200);
    touches += 1;
    const touched = await http.graphql(
      `${via.base}/graphql`,
      TOUCH_USER,
      { id: String(owner.id), input: { fullName: `Touched ${touches}` } },
      { token: owner.token },
    );
    expect(touched.body.errors).toBeUndefined();
    // The write also dropped what the gateway knew of each caller's account (ADR 0019): established again by a request
    // that reads nothing cacheable, so that the race's reads reach the deduplication while the subgraph is paused.
    for (const token of tokens) {
      const established = await http.graphql(`${via.base}/graphql`, 'query Established { __typename }', {}, { token });
      expect(established.status).toBe(200);
    }
  };

  it('when one caller sends the same read ten times at once, then the subgraph serves it once and each gets the answer', async () => {
    await warm([owner.token]);
    const served = await subgraphReads();
    const answers = await whilePaused(() => Array.from({ length: 10 }, () => read(owner.token)), {
      sent: 1,
      merged: 9,
    });
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        data: {
          user: { id: String(owner.id), username: expect.any(String), email: expect.stringContaining('@') },
        },
      });
    }
    expect((await subgraphReads()) - served).toBe(1);
  });

  it("when callers with different rights race the same read, then none shares another's fetch and each gets its own view", async () => {
    await warm([owner.token, owner.narrowToken, other.token]);
    const served = await subgraphReads();
    const [own, narrow, others] = await whilePaused(
      () => [read(owner.token), read(owner.narrowToken), read(other.token)],
      { sent: 3, merged: 0 },
    );
    expect((await subgraphReads()) - served).toBe(3);
    // The owner with users:read sees the e-mail.
    expect(own!.body.errors).toBeUndefined();
    expect(own!.body.data.user.email).toContain('@');
    // The same account with a token narrowed to items:read may not read users at all.
    expect(narrow!.body.data?.user ?? null).toBeNull();
    expect(narrow!.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toContain(
      'FORBIDDEN',
    );
    // Another member (users:read) sees the same profile, but through a fetch of its own (counted above).
    expect(others!.body.errors).toBeUndefined();
    expect(others!.body.data.user.id).toBe(String(owner.id));
  });

  it('when the read cache is off (no generation), then identical reads in flight never join the fetch on its way: the ones that arrive behind it share the next', async () => {
    await warm([owner.token], uncached);
    const served = await subgraphReads();
    const answers = await whilePaused(
      () => Array.from({ length: 5 }, () => read(owner.token, uncached)),
      // The first read's fetch, and one more sent after it settles for the four that arrived while it was on its way
      // (a read arriving after a write returned may not get an answer read before it: ADR 0017).
      { sent: 2, merged: 3 },
      uncached,
    );
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.data.user).toEqual({
        id: String(owner.id),
        username: expect.any(String),
        email: expect.stringContaining('@'),
      });
    }
    expect((await subgraphReads()) - served).toBe(2);
  });
});
