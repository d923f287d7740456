/**
 * Persisted operations over HTTP: APQ registrations in Redis shared by two gateway processes (the shared stack's and
 * a second one on the same Redis), each client within its own registration budget, a hash that is not its document's
 * refused as the client error it is; trusted-documents mode (a production gateway with TRUSTED_DOCUMENTS=true) refusing
 * ad-hoc documents and registrations while running listed ids and the facade's own documents; and the production
 * IDE only behind HTTP Basic.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { signAccessToken } from '@platform/auth';
import { makeTempDir, type ManagedProcess } from '@platform/dev-stack';
import {
  http,
  stackSubgraphSecret,
  startExtraApp,
  testStack,
  errorCodes as codesOf,
  stackSubgraphUrls,
  unique,
} from '@platform/testing';

const stack = testStack();
const sharedGateway = `${stack.gatewayUrl}/graphql`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
let token = '';
const adminToken = () => token;

beforeAll(async () => {
  const login = await http.post(`${stack.restUrl}/token`, {
    form: { username: 'admin', password: 'admin-password-1' },
  });
  token = (login.body as { access_token: string }).access_token;
});

/** An APQ request: the hash always, the document only when registering. */
const apq = (url: string, hash: string, query?: string, token?: string) =>
  http.post(url, {
    json: { ...(query ? { query } : {}), extensions: { persistedQuery: { version: 1, sha256Hash: hash } } },
    ...(token ? { token } : {}),
  });

interface Gateway {
  url: string;
  base: string;
  process: ManagedProcess;
}

const dir = makeTempDir('persisted-operations-');
const started: ManagedProcess[] = [];

/** A gateway of its own over the shared subgraphs and Redis. */
async function startGateway(env: Record<string, string>): Promise<Gateway> {
  const gateway = await startExtraApp(
    'gateway',
    {
      SUBGRAPH_SECRET: stackSubgraphSecret(stack),
      ...stackSubgraphUrls(),
      REDIS_URL: stack.redisUrl,
      RATE_LIMIT_POINTS: '100000',
      ...env,
    },
    dir.path,
    `gateway-${started.length}`,
  );
  started.push(gateway.process);
  return { url: `${gateway.url}/graphql`, base: gateway.url, process: gateway.process };
}

/** Apollo Server stores a registration after it answered: waits (up to 5 s) until Redis has it. */
async function stored(hash: string): Promise<void> {
  const redis = new Redis(stack.redisUrl);
  try {
    for (let i = 0; i < 50 && (await redis.exists(`gateway:{apq}:${hash}`)) === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    redis.disconnect();
  }
}

afterAll(async () => {
  await Promise.all(started.map((process) => process.stop()));
  dir.remove();
}, 30_000);

describe('APQ with registrations in Redis', () => {
  let second: Gateway;
  let redis: Redis;

  beforeAll(async () => {
    second = await startGateway({ NODE_ENV: 'production', APQ_MAX_DOCUMENT_BYTES: '256' });
    redis = new Redis(stack.redisUrl);
  }, 60_000);

  afterAll(() => redis.disconnect());

  it('when a hash arrives before its document was registered, then PERSISTED_QUERY_NOT_FOUND; once registered on one gateway, both run it', async () => {
    const query = `query Apq${unique()} { __typename }`;
    const hash = sha256(query);
    for (const url of [sharedGateway, second.url]) {
      const before = await apq(url, hash);
      expect(codesOf(before.body)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    }
    const registered = await apq(sharedGateway, hash, query);
    expect(registered.body).toEqual({ data: { __typename: 'Query' } });
    await stored(hash);
    for (const url of [second.url, sharedGateway]) {
      const after = await apq(url, hash);
      expect({ url, body: after.body }).toEqual({ url, body: { data: { __typename: 'Query' } } });
    }
    const ttl = await redis.ttl(`gateway:{apq}:${hash}`);
    expect(ttl).toBeGreaterThan(86_000);
    expect(ttl).toBeLessThanOrEqual(86_400);
  });

  it('when a document is longer than APQ_MAX_DOCUMENT_BYTES, then it runs but is not registered', async () => {
    const query = `query Long${unique()} { ${Array.from({ length: 30 }, (_, i) => `f${i}: __typename`).join(' ')} }`;
    expect(Buffer.byteLength(query)).toBeGreaterThan(256);
    const hash = sha256(query);
    const registered = await apq(second.url, hash, query);
    expect(registered.body.data.f0).toBe('Query');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(codesOf((await apq(second.url, hash)).body)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    expect(await redis.exists(`gateway:{apq}:${hash}`)).toBe(0);
  });

  it('when a production gateway has GRAPHIQL unset, then there is no IDE at /graphiql/', async () => {
    const response = await http.get(`${second.base}/graphiql/`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(404);
    expect(response.text).not.toMatch(/<html/i);
  });
});

describe('APQ registration budgets and hash checks', () => {
  const CLIENT_BUDGET = 512;
  let budgeted: Gateway;
  const clientToken = (name: string) =>
    signAccessToken(
      { sub: `${name}-${unique()}`, uid: null, role: 'member', scopes: ['users:read'], kind: 'user' },
      stack.jwtSecret,
      600,
    );

  beforeAll(async () => {
    budgeted = await startGateway({ APQ_CLIENT_MAX_BYTES: String(CLIENT_BUDGET) });
  }, 60_000);

  /** Which of `hashes` the gateway runs by hash alone, once that stops changing (registrations land after the answer). */
  async function registered(hashes: string[], token: string): Promise<boolean[]> {
    let last: boolean[] = [];
    for (let i = 0; i < 20; i += 1) {
      const now = await Promise.all(
        hashes.map(async (hash) => (await apq(budgeted.url, hash, undefined, token)).body.data !== undefined),
      );
      if (now.join() === last.join()) break;
      last = now;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return last;
  }

  it('when one client registers more than its budget, then its surplus is not kept while another client still registers', async () => {
    const flooder = clientToken('apq-flood');
    const documents = Array.from({ length: 20 }, (_, i) => `query Budget${i}x${unique()} { __typename }`);
    for (const query of documents) {
      const answer = await apq(budgeted.url, sha256(query), query, flooder);
      // A registration refused by the budget still runs: only the next hash-only request misses.
      expect(answer.body).toEqual({ data: { __typename: 'Query' } });
    }
    const kept = await registered(documents.map(sha256), flooder);
    const keptCount = kept.filter(Boolean).length;
    expect(keptCount).toBeGreaterThan(0);
    expect(keptCount).toBeLessThanOrEqual(Math.floor(CLIENT_BUDGET / Buffer.byteLength(documents[0]!)));
    const missed = documents.find((_, index) => !kept[index])!;
    expect(codesOf((await apq(budgeted.url, sha256(missed), undefined, flooder)).body)).toEqual([
      'PERSISTED_QUERY_NOT_FOUND',
    ]);

    const other = `query OtherClient${unique()} { __typename }`;
    const otherToken = clientToken('apq-other');
    await apq(budgeted.url, sha256(other), other, otherToken);
    expect(await registered([sha256(other)], otherToken)).toEqual([true]);
    expect((await apq(sharedGateway, sha256(other))).body).toEqual({ data: { __typename: 'Query' } });
  });

  it('when a document comes with a hash that is not its SHA-256, then 400 PERSISTED_QUERY_HASH_MISMATCH and nothing is kept', async () => {
    const query = `query Mismatch${unique()} { __typename }`;
    const wrong = sha256(`${query} `);
    const post = await apq(sharedGateway, wrong, query);
    expect(post.status).toBe(400);
    expect(post.body).toEqual({
      errors: [
        {
          message: 'provided sha does not match query',
          extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH' },
        },
      ],
    });
    const extensions = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: wrong } });
    const get = await http.get(
      `${sharedGateway}?query=${encodeURIComponent(query)}&extensions=${encodeURIComponent(extensions)}`,
      { headers: { 'apollo-require-preflight': 'true' } },
    );
    expect(get.status).toBe(400);
    expect(codesOf(get.body)).toEqual(['PERSISTED_QUERY_HASH_MISMATCH']);
    expect(codesOf((await apq(sharedGateway, wrong)).body)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
  });
});

describe('trusted documents (TRUSTED_DOCUMENTS=true, production)', () => {
  const PASSWORD = 'ide-password-0123456789';
  const manifest = JSON.parse(
    readFileSync(join(stack.rootDir, 'dist', 'apps', 'gateway', 'trusted-documents.json'), 'utf8'),
  ) as {
    operations: Array<{ id: string; name: string; body: string }>;
  };
  const listed = (name: string) => manifest.operations.find((op) => op.name === name)!;
  let trusted: Gateway;

  beforeAll(async () => {
    trusted = await startGateway({
      NODE_ENV: 'production',
      TRUSTED_DOCUMENTS: 'true',
      GRAPHIQL: 'on',
      GRAPHIQL_PASSWORD: PASSWORD,
    });
  }, 60_000);

  it('when the manifest is built, then it holds the facade documents and the registered ones, each id the hash of its body', () => {
    const names = manifest.operations.map((op) => op.name);
    expect(names).toEqual(expect.arrayContaining(['GetMe', 'GetUser', 'CreateItem', 'ListPosts', 'WhoAmI']));
    for (const op of manifest.operations) expect(sha256(op.body)).toBe(op.id);
  });

  it('when an ad-hoc document is sent, then it is refused with 400 PERSISTED_QUERY_NOT_IN_LIST', async () => {
    const response = await http.graphql(trusted.url, '{ __typename }', {}, { token: adminToken() });
    expect(response.status).toBe(400);
    expect(codesOf(response.body)).toEqual(['PERSISTED_QUERY_NOT_IN_LIST']);
    expect(response.body.data).toBeUndefined();
  });

  it('when a client tries to register a new document, then it is refused and its hash stays unknown', async () => {
    const query = `query Sneaky${unique()} { __typename }`;
    const registering = await apq(trusted.url, sha256(query), query);
    expect(registering.status).toBe(400);
    expect(codesOf(registering.body)).toEqual(['PERSISTED_QUERY_NOT_IN_LIST']);
    expect(codesOf((await apq(trusted.url, sha256(query))).body)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
  });

  it('when a listed id is sent, then the operation runs; the listed document in full runs too', async () => {
    const byId = await apq(trusted.url, listed('WhoAmI').id, undefined, adminToken());
    expect(byId.status).toBe(200);
    expect(byId.body.data.me).toMatchObject({ username: 'admin', role: 'admin' });
    const inFull = await http.graphql(trusted.url, listed('GetMe').body, {}, { token: adminToken() });
    expect(inFull.body.data.me).toMatchObject({ username: 'admin' });
  });

  it('when the REST facade runs on a trusted gateway, then its routes work (its documents are listed)', async () => {
    const facadeDir = makeTempDir('trusted-rest-');
    const rest = await startExtraApp(
      'rest',
      { GATEWAY_URL: trusted.url, REDIS_URL: stack.redisUrl, RATE_LIMIT_POINTS: '100000' },
      facadeDir.path,
    );
    try {
      const me = await http.get(`${rest.url}/users/me`, { token: adminToken() });
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ username: 'admin' });
      const items = await http.get(`${rest.url}/items/?limit=1`, { token: adminToken() });
      expect(items.status).toBe(200);
    } finally {
      await rest.process.stop();
      facadeDir.remove();
    }
  }, 60_000);

  it('when GRAPHIQL=on in production, then /graphiql/ asks for HTTP Basic and serves the IDE and schema with the password only', async () => {
    const ide = `${trusted.base}/graphiql/`;
    const anonymous = await http.get(ide, { headers: { accept: 'text/html' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm="GraphiQL"/);
    const basic = (password: string) => `Basic ${Buffer.from(`team:${password}`).toString('base64')}`;
    expect(
      (await http.get(ide, { headers: { authorization: basic('wrong-password-0123456') } })).status,
    ).toBe(401);
    expect((await http.get(`${ide}schema.graphql`)).status).toBe(401);
    const page = await http.get(ide, { headers: { authorization: basic(PASSWORD) } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/);
    const schema = await http.get(`${ide}schema.graphql`, { headers: { authorization: basic(PASSWORD) } });
    expect(schema.text).toContain('type Query');
    expect(schema.text).not.toContain('_verifyApiKey');
    const onGraphql = await http.get(trusted.url, { headers: { accept: 'text/html' } });
    expect(onGraphql.headers.get('content-type') ?? '').not.toContain('text/html');
  });
});
