/**
 * Rotating every shared secret without an outage (README "Rotating secrets", docs/decisions/0021): JWT_SECRET,
 * SUBGRAPH_SECRET and IDEMPOTENCY_SECRET are rotated together, in production mode, while requests run the whole time.
 *
 * Set-up: a fleet of its own (the shared FerretDB with databases of its own, a redis-server of its own): users, items,
 * auth, posts and events one replica each, rest two (embedded executor), each app behind an HTTP balancer (rolling-fleet.ts);
 * every process reaches the others only through the balancers, so a request meets whichever replica is in rotation.
 *
 * The procedure, each step a rolling restart of every app (all apps at once, each replica after replica, old and new
 * replicas serving side by side meanwhile):
 *   1. publish: `<NAME>_ACCEPTED=<new>`: every process accepts the new values, none uses them yet;
 *   2. switch:  `<NAME>=<new>`, `<NAME>_ACCEPTED=<old>`: the new values sign, are sent and seal; the old still work;
 *   3. retire:  `<NAME>=<new>` alone, once nothing made with the old values is still valid (tokens after
 *      ACCESS_TOKEN_TTL, idempotency records after their 24 h): the test stops using what it made before step 2
 *      finished, as a client whose tokens expired would.
 *
 * Load, all the while, through the rest balancer: logins, reads with bearer tokens issued by either side (GET
 * /users/me, GET /items/{id}), reads with an API key (exchanged for a JWT in whichever facade serves it, verified in
 * whichever subgraph serves the fetch), registrations (users -> auth over an internal token and the subgraph secret),
 * keyed creates and their retries (a retry usually reaches the other rest replica, and retries of creates made one step
 * earlier run too), and cursor pages whose next page goes to the other replica. Asserted: every request answers what
 * it answers without a rotation (each one's expected status and body), and after step 3 a token and a cursor made
 * with the retired JWT key are refused by every replica.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { keyIdOf } from '@platform/auth';
import { makeTempDir, startRedis, type RunningInfra } from '@platform/dev-stack';
import { http, testStack, unique, type HttpResponse } from '@platform/testing';
import { rollReplicas, startBalancer, startReplica, type Balancer, type Replica } from './test/rolling-fleet';

const stack = testStack();
const SUBGRAPHS = ['users', 'items', 'auth', 'posts', 'events'] as const;
type Fleet = (typeof SUBGRAPHS)[number] | 'rest';
const REST_REPLICAS = 2;
const WORKERS = 4;
/** How long a new replica and the one it replaces serve side by side. */
const SIDE_BY_SIDE_MS = 2_000;

const secret = () => randomBytes(36).toString('base64url');
/** The events service's, not rotated here (it seals stored webhook secrets: README). */
const WEBHOOK_SECRETS_KEY = secret();
const OLD = { JWT_SECRET: secret(), SUBGRAPH_SECRET: secret(), IDEMPOTENCY_SECRET: secret() };
const NEW = { JWT_SECRET: secret(), SUBGRAPH_SECRET: secret(), IDEMPOTENCY_SECRET: secret() };
type Secrets = Record<string, string>;
const NAMES = Object.keys(OLD) as (keyof typeof OLD)[];
const accepted = (current: typeof OLD, other?: typeof OLD): Secrets =>
  Object.fromEntries(
    NAMES.flatMap((name) => [
      [name, current[name]],
      ...(other ? [[`${name}_ACCEPTED`, other[name]]] : []),
    ]),
  );
const STEPS: { name: string; secrets: Secrets }[] = [
  { name: 'publish', secrets: accepted(OLD, NEW) },
  { name: 'switch', secrets: accepted(NEW, OLD) },
  { name: 'retire', secrets: accepted(NEW) },
];

interface User {
  id: number;
  username: string;
  password: string;
  items: number[];
}
interface Token {
  user: User;
  value: string;
  /** The rotation step that had finished when it was issued (0: none). */
  madeAfter: number;
}
interface KeyedCreate {
  user: User;
  key: string;
  body: { name: string; price: number };
  id: number;
  madeAfter: number;
  retried: boolean;
}

describe('rotating JWT_SECRET, SUBGRAPH_SECRET and IDEMPOTENCY_SECRET under load', () => {
  const dir = makeTempDir('secret-rotation-');
  const balancers = {} as Record<Fleet, Balancer>;
  const replicas = {} as Record<Fleet, Replica[]>;
  let redis: RunningInfra;
  let secrets: Secrets = accepted(OLD);
  let launched = 0;

  const envFor = (app: Fleet): Record<string, string> => ({
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    DATA_DIR: join(dir.path, 'data'),
    APOLLO_TELEMETRY_DISABLED: 'true',
    MONGO_URL: stack.mongoUrl,
    MONGO_DB: `rotation_${app}`,
    // The suite's FerretDB is one server, not a replica set.
    MONGO_ALLOW_STANDALONE: 'true',
    WEBHOOK_SECRETS_KEY: WEBHOOK_SECRETS_KEY,
    REDIS_URL: redis.url,
    RATE_LIMIT_POINTS: '1000000',
    LOGIN_RATE_LIMIT_POINTS: '1000000',
    GATEWAY_MODE: 'embedded',
    ...Object.fromEntries(SUBGRAPHS.map((s) => [`${s.toUpperCase()}_SUBGRAPH_URL`, `${balancers[s].url}/graphql`])),
    ...secrets,
  });
  const start = (app: Fleet) => startReplica(stack.rootDir, app, envFor(app), dir.path, `${app}-${++launched}`);
  const rest = (path: string) => `${balancers.rest.url}${path}`;

  beforeAll(async () => {
    redis = await startRedis({ dataDir: join(dir.path, 'redis') });
    mkdirSync(join(dir.path, 'data'), { recursive: true });
    for (const app of [...SUBGRAPHS, 'rest'] as const) balancers[app] = await startBalancer();
    for (const app of SUBGRAPHS) replicas[app] = [await start(app)];
    replicas.rest = [];
    for (let i = 0; i < REST_REPLICAS; i++) replicas.rest.push(await start('rest'));
    for (const app of [...SUBGRAPHS, 'rest'] as const) for (const replica of replicas[app]) balancers[app].add(replica.url);
  }, 300_000);

  afterAll(async () => {
    for (const app of ['rest', ...SUBGRAPHS] as const)
      await Promise.all((replicas[app] ?? []).map((r) => r.process.stop('SIGTERM', 10_000)));
    await Promise.all(Object.values(balancers).map((b) => b.close()));
    await redis?.process.stop('SIGTERM', 10_000);
    dir.remove();
  }, 60_000);

  it('when every secret is rotated by three rolling restarts under load, then no valid request is refused, and the retired JWT key is refused afterwards', async () => {
    let finishedSteps = 0;
    const failures: string[] = [];
    const counts: Record<string, number> = {};
    const users: User[] = [];
    const tokens: Token[] = [];
    const creates: KeyedCreate[] = [];
    const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
    /** What a client still holds: at step 3 (retire) only what was made after step 2 finished (the rest expired). */
    const usable = <T extends { madeAfter: number }>(list: T[]): T[] =>
      finishedSteps >= 2 ? list.filter((entry) => entry.madeAfter >= 2) : list;
    const check = (op: string, response: HttpResponse, ok: boolean) => {
      counts[op] = (counts[op] ?? 0) + 1;
      if (!ok && failures.length < 50)
        failures.push(`${op} after step ${finishedSteps}: ${response.status} ${response.text.slice(0, 200)}`);
    };
    const login = async (user: User): Promise<Token> => {
      const madeAfter = finishedSteps;
      const response = await http.post(rest('/token'), { form: { username: user.username, password: user.password } });
      check('login', response, response.status === 200 && typeof response.body.access_token === 'string');
      const token = { user, value: response.body.access_token as string, madeAfter };
      if (response.status === 200) tokens.push(token);
      return token;
    };
    /** One of the user's tokens the client still holds, or a fresh one (a client whose tokens expired logs in). */
    const tokenOf = async (user: User): Promise<string> => {
      const held = usable(tokens).filter((t) => t.user === user);
      return (held.length > 0 ? pick(held) : await login(user)).value;
    };

    // Data the load reads: users with items, and an API key.
    for (let i = 0; i < 4; i++) {
      const username = `rot${unique()}`;
      const password = `pw-${unique()}-9`;
      const created = await http.post(rest('/users/'), { json: { username, email: `${username}@example.com`, password } });
      expect(created.status).toBe(201);
      const user: User = { id: created.body.id as number, username, password, items: [] };
      const token = await login(user);
      for (let j = 0; j < 3; j++) {
        const item = await http.post(rest('/items/'), { token: token.value, json: { name: `seed ${j}`, price: 10 + j } });
        expect(item.status).toBe(201);
        user.items.push(item.body.id as number);
      }
      users.push(user);
    }
    const apiKey = await http.post(rest('/api-keys'), { token: tokens[0]!.value, json: { name: 'rotation', scopes: ['items:read'] } });
    expect(apiKey.status).toBe(201);
    const listing = (user: User, pageToken?: string) =>
      rest(`/items/?owner_id=${user.id}&pageSize=1${pageToken ? `&pageToken=${pageToken}` : ''}`);
    const oldCursor = (await http.get(listing(users[0]!), { token: tokens[0]!.value })).body.pagination.nextPageToken as string;

    const operations: Record<string, () => Promise<void>> = {
      login: async () => void (await login(pick(users))),
      me: async () => {
        const user = pick(users);
        const response = await http.get(rest('/users/me'), { token: await tokenOf(user) });
        check('me', response, response.status === 200 && response.body.username === user.username);
      },
      readItem: async () => {
        const id = pick(pick(users).items);
        const response = await http.get(rest(`/items/${id}`), { token: await tokenOf(pick(users)) });
        check('readItem', response, response.status === 200 && response.body.id === id);
      },
      apiKey: async () => {
        const id = pick(pick(users).items);
        const response = await http.get(rest(`/items/${id}`), { headers: { 'x-api-key': apiKey.body.key as string } });
        check('apiKey', response, response.status === 200 && response.body.id === id);
      },
      register: async () => {
        const username = `rotreg${unique()}`;
        const response = await http.post(rest('/users/'), {
          json: { username, email: `${username}@example.com`, password: `pw-${unique()}-9` },
        });
        check('register', response, response.status === 201);
      },
      create: async () => {
        const user = pick(users);
        const key = `rotation-${unique()}`;
        const body = { name: `keyed ${key}`, price: 5 };
        const madeAfter = finishedSteps;
        const response = await http.post(rest('/items/'), {
          token: await tokenOf(user),
          headers: { 'idempotency-key': key },
          json: body,
        });
        check('create', response, response.status === 201 && response.headers.get('idempotency-status') === null);
        if (response.status === 201)
          creates.push({ user, key, body, id: response.body.id as number, madeAfter, retried: false });
      },
      retry: async () => {
        // The oldest create not retried yet (often one made a step earlier), else any: each replays the first answer.
        const candidates = usable(creates);
        const create = candidates.find((c) => !c.retried) ?? (candidates.length > 0 ? pick(candidates) : undefined);
        if (!create) return;
        create.retried = true;
        const response = await http.post(rest('/items/'), {
          token: await tokenOf(create.user),
          headers: { 'idempotency-key': create.key },
          json: create.body,
        });
        check(
          'retry',
          response,
          response.status === 201 &&
            response.headers.get('idempotent-replayed') === 'true' &&
            response.body.id === create.id,
        );
      },
      page: async () => {
        const user = pick(users);
        const token = await tokenOf(user);
        const first = await http.get(listing(user), { token });
        check('page', first, first.status === 200 && typeof first.body.pagination?.nextPageToken === 'string');
        if (first.status !== 200) return;
        // The balancer sends the next page to the other replica (round robin): a cursor made on one side, read on the other.
        const next = await http.get(listing(user, first.body.pagination.nextPageToken as string), { token });
        check('page', next, next.status === 200 && next.body.data.length === 1);
      },
    };

    let running = true;
    const names = Object.keys(operations);
    const workers = Array.from({ length: WORKERS }, async () => {
      while (running) {
        const op = pick(names);
        try {
          await operations[op]!();
        } catch (error) {
          failures.push(`${op} after step ${finishedSteps}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    });
    const stepMs: number[] = [];
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      for (const [index, step] of STEPS.entries()) {
        const started = Date.now();
        secrets = step.secrets;
        // Every app at once, as `kubectl apply` rolls every Deployment that reads the Secret.
        await Promise.all(
          (['rest', ...SUBGRAPHS] as const).map((app) =>
            rollReplicas(balancers[app], replicas[app], () => start(app), SIDE_BY_SIDE_MS),
          ),
        );
        finishedSteps = index + 1;
        stepMs.push(Date.now() - started);
        // Tokens and keyed creates of this step before the next one rolls.
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
    } finally {
      running = false;
      await Promise.all(workers);
    }
    process.stdout.write(
      `secret rotation: steps ${stepMs.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')}; answers ${JSON.stringify(counts)}\n`,
    );

    expect(failures).toEqual([]);
    for (const op of names) expect({ op, ran: (counts[op] ?? 0) > 0 }).toEqual({ op, ran: true });
    // The load met both keys: tokens signed by the old one and by the new one, told apart by `kid`.
    const kidOf = (token: string) =>
      (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { kid: string }).kid;
    expect(new Set(tokens.map((t) => kidOf(t.value)))).toEqual(new Set([keyIdOf(OLD.JWT_SECRET), keyIdOf(NEW.JWT_SECRET)]));

    // After the overlap: what the retired key made is refused by every replica (round robin: two requests each).
    const retired = tokens.find((t) => t.madeAfter === 0)!;
    expect(kidOf(retired.value)).toBe(keyIdOf(OLD.JWT_SECRET));
    for (let i = 0; i < 2 * REST_REPLICAS; i++) {
      expect((await http.get(rest('/users/me'), { token: retired.value })).status).toBe(401);
      const page = await http.get(listing(users[0]!, oldCursor), { token: await tokenOf(users[0]!) });
      expect({ status: page.status, invalidCursor: page.text.includes('not a valid cursor') }).toEqual({
        status: 422,
        invalidCursor: true,
      });
    }
  }, 600_000);
});
