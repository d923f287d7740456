/**
 * `npm run bench`: boots the real system (FerretDB, redis-server and the six processes from dist/, as `npm start`
 * does, on free ports) over a fresh, seeded database, then runs each autocannon scenario (warm-up, then a measured
 * run at c=50) and samples every process's CPU from /proc. Writes bench/results/latest.json and prints a table.
 *
 *   npm run bench                  # full run (about 4 minutes)
 *   npm run bench -- --quick       # short runs (under a minute and a half), noisy numbers
 *   npm run bench -- --only=rest.users.get,gateway.users.get --env GATEWAY_IN_PROCESS=true --out=/tmp/a.json
 *   npm run bench -- --quick --uncached  # include the uncached system (every cache and dedup off) in a short run too
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import {
  appEnvironment,
  freePort,
  parsePrometheusText,
  makeTempDir,
  startFerretDb,
  startApp,
  startProcess,
  startRedis,
  startSystem,
  waitForHttpOk,
  waitForPort,
  type ManagedProcess,
  type RunningInfra,
  type RunningSystem,
} from '@platform/dev-stack';
import { OPERATIONS } from '../apps/rest/src/gateway/gateway-client';
import { FULL_SEED, SEED_PASSWORD, seedDatabase, seedUsername, type SeedSizes } from './bench-seed';
import {
  addCacheCounts,
  checkTargets,
  computeRatios,
  cpuPerRequest,
  formatTable,
  mergeRuns,
  ownProcesses,
  skippedScenario,
  summarizeRun,
  UNCACHED_PREFIX,
  type CacheCount,
  type CpuTicks,
  type LoadRun,
  type MetricSample,
  REFERENCES,
  type ScenarioResult,
} from './bench-results';

const { GetUser } = OPERATIONS;

const log = (message: string) => process.stdout.write(`[bench] ${message}\n`);

interface Options {
  quick: boolean;
  only: string[] | null;
  env: Record<string, string>;
  out: string | null;
  warmupSeconds: number;
  durationSeconds: number;
  connections: number;
  /** Boot and seed, print the URLs and the token, then wait for Ctrl-C (for profiling by hand). */
  hold: boolean;
  /**
   * Reads pick ids in 1..hot (0: the whole data set). FerretDB v1's SQLite backend pushes down only a string or
   * ObjectId `_id` equality: any other filter, an integer `_id` included, is a scan in insertion order that stops at the
   * first match, so a read of id N costs N documents decoded. A small hot set keeps the database out of the way
   * of the application path under test; the `*.full_range` scenario shows the scan (docs/performance.md).
   */
  hot: number;
  /**
   * Run rest.users.get a second time on a second system with every cache and deduplication off (UNCACHED_ENV):
   * true with --uncached, false with --no-uncached, null (the default) = in a full run, not with --quick.
   */
  uncached: boolean | null;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { quick: false, only: null, env: {}, out: null, warmupSeconds: 3, durationSeconds: 15, connections: 50, hold: false, hot: 10, uncached: null };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    const value = (prefix: string) => (arg.startsWith(`${prefix}=`) ? arg.slice(prefix.length + 1) : argv[++i] ?? '');
    if (arg === '--quick') options.quick = true;
    else if (arg === '--hold') options.hold = true;
    else if (arg === '--uncached') options.uncached = true;
    else if (arg === '--no-uncached') options.uncached = false;
    else if (arg.startsWith('--only')) options.only = value('--only').split(',').filter(Boolean);
    else if (arg.startsWith('--out')) options.out = resolve(value('--out'));
    else if (arg.startsWith('--hot')) options.hot = Number(value('--hot'));
    else if (arg.startsWith('--duration')) options.durationSeconds = Number(value('--duration'));
    else if (arg.startsWith('--env')) {
      const pair = value('--env');
      const eq = pair.indexOf('=');
      if (eq < 1) throw new Error(`--env takes KEY=VALUE, not ${pair}`);
      options.env[pair.slice(0, eq)] = pair.slice(eq + 1);
    } else throw new Error(`unknown argument ${arg}`);
  }
  if (options.quick) {
    options.warmupSeconds = 1;
    options.durationSeconds = Math.min(options.durationSeconds, 3);
  }
  return options;
}

/** The scenarios the ratios compare: measured in interleaved rounds (PAIRED_ROUNDS in a full run, one with --quick). */
const PAIRED_SCENARIOS = ['rest.users.get', 'rest.users.get.remote', 'gateway.users.get', 'direct.users.get', 'baseline.users.get', 'rest.users.get.uncached'];

/**
 * Every setting that switches a cache or a deduplication off, for the uncached system (issue 19: "with every cache
 * and deduplication switched off, the REST read still >= 1.5x the docs-default chain"). The one place to extend when a
 * new cache or dedup lands; a process that does not know a variable ignores it.
 */
const UNCACHED_ENV: Record<string, string> = {
  // hcache: the read cache (facade / gateway / subgraphs).
  READ_CACHE: 'off',
  // hperf: identical in-flight reads deduplicated (they need the cache's generation anyway: ADR 0017).
  SUBGRAPH_DEDUP: 'off',
};
const PAIRED_ROUNDS = 3;

/** Enough that no scenario is throttled (the limits themselves are exercised by the e2e tests). */
const UNTHROTTLED = { RATE_LIMIT_POINTS: '1000000000', LOGIN_RATE_LIMIT_POINTS: '1000000000' };
/**
 * What a deployment runs: production mode (no per-request MongoDB command monitoring, no sandbox); `--env` overrides.
 * The bench's FerretDB is one standalone server, which production otherwise refuses (ADR 0026).
 */
const DEPLOYMENT = { NODE_ENV: 'production', MONGO_ALLOW_STANDALONE: 'true' };

interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Scenario {
  name: string;
  target: 'rest' | 'rest-remote' | 'gateway' | 'direct' | 'baseline' | 'rest-uncached';
  /** The OpenAPI path and method the scenario needs; absent in openapi.json: "skipped: route missing". */
  route?: { path: string; method: 'get' | 'post' };
  expectStatus: number;
  next: () => RequestSpec;
  /** Checks the probe's parsed body; returns a problem or null. */
  check?: (body: unknown) => string | null;
  note?: string;
  prepare?: () => Promise<void>;
  /** Overrides the concurrency (only for the database-bound full-range scenario). */
  connections?: number;
  /** Only in a full run (a database demonstration, not an application number). */
  fullRunOnly?: boolean;
}

const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

function readTicks(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the whole line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

function ticksPerSecond(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

const has = (body: unknown, path: readonly string[]): boolean => {
  let current: unknown = body;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || !(key in current)) return false;
    current = (current as Record<string, unknown>)[key];
  }
  return current !== null && current !== undefined;
};

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const rootDir = resolve(__dirname, '..', '..');
  const started = Date.now();
  const seed: SeedSizes = FULL_SEED;
  const clk = ticksPerSecond();
  const loadAtStart = loadavg();
  log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load average ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}`);
  if ((loadAtStart[0] ?? 0) > 2) log('WARNING: load average above 2: other work competes for the CPUs; numbers will be noisy');
  log(`rate limits raised so nothing is throttled: ${Object.entries(UNTHROTTLED).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  log(`environment of every process: ${Object.entries({ ...DEPLOYMENT, ...options.env }).map(([k, v]) => `${k}=${v}`).join(' ')}`);

  const includeUncached = options.uncached ?? (options.only?.includes('rest.users.get.uncached') || !options.quick);
  /** Selected by --only (all without it); the uncached system's scenario also by --uncached / --quick (Options). */
  const wanted = (name: string) => (!options.only || options.only.includes(name)) && (name !== 'rest.users.get.uncached' || includeUncached);
  if (wanted('rest.users.get.uncached')) log(`uncached system: rest.users.get again with ${Object.entries(UNCACHED_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}`);

  const tmp = makeTempDir('api-bench-');
  const infra: RunningInfra[] = [];
  let system: RunningSystem | undefined;
  let direct: ManagedProcess | undefined;
  let restRemote: ManagedProcess | undefined;
  let uncachedSystem: RunningSystem | undefined;
  const baseline: ManagedProcess[] = [];
  let stopping = false;
  const cleanup = async () => {
    if (stopping) return;
    stopping = true;
    await direct?.stop('SIGTERM', 5_000);
    await restRemote?.stop('SIGTERM', 5_000);
    for (const proc of [...baseline].reverse()) await proc.stop('SIGTERM', 5_000);
    await uncachedSystem?.stop();
    await system?.stop();
    await Promise.all(infra.map((i) => i.process.stop('SIGTERM', 5_000)));
    tmp.remove();
  };
  process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
  process.on('SIGTERM', () => void cleanup().then(() => process.exit(143)));

  try {
    const ferret = await startFerretDb({ dataDir: join(tmp.path, 'ferretdb'), logFile: join(tmp.path, 'ferretdb.log'), log });
    infra.push(ferret);
    const redis = await startRedis({ dataDir: join(tmp.path, 'redis'), log });
    infra.push(redis);
    log(`FerretDB ${ferret.url}, redis ${redis.url}; seeding ${seed.users} users, ${seed.items} items, ${seed.posts} posts`);
    await seedDatabase(ferret.url, seed, log);

    const jwtSecret = randomBytes(32).toString('hex');
    // Production mode requires SUBGRAPH_SECRET (issue 12): one per run, like the JWT secret.
    options.env['SUBGRAPH_SECRET'] ??= randomBytes(32).toString('hex');
    system = await startSystem({
      rootDir,
      mongoUrl: ferret.url,
      redisUrl: redis.url,
      jwtSecret,
      freePorts: true,
      logDir: tmp.path,
      env: { DATA_DIR: tmp.path, ...DEPLOYMENT, ...UNTHROTTLED, ...options.env },
    });
    const directPort = await freePort();
    direct = startProcess('direct', process.execPath, [join(rootDir, 'dist', 'tools', 'bench-direct.js')], {
      cwd: rootDir,
      env: { PATH: process.env['PATH'] ?? '', MONGO_URL: ferret.url, PORT: String(directPort) },
      logFile: join(tmp.path, 'direct.log'),
    });
    const directUrl = `http://127.0.0.1:${directPort}`;
    await waitForHttpOk(`${directUrl}/healthz`, 30_000, () => direct?.child.exitCode === null);
    // A second facade with GATEWAY_MODE=remote (every operation over HTTP to the gateway process), beside the default
    // embedded one.
    const remotePort = await freePort();
    const remoteMetricsPort = await freePort();
    restRemote = startApp('rest', {
      rootDir,
      env: {
        ...appEnvironment('rest', system.ports, system.env),
        PORT: String(remotePort),
        GATEWAY_MODE: 'remote',
        ...(system.env['METRICS_PORT'] === 'off' ? {} : { METRICS_PORT: String(remoteMetricsPort) }),
      },
      logDir: tmp.path,
      logName: 'rest-remote',
    });
    const restRemoteUrl = `http://127.0.0.1:${remotePort}`;
    await waitForHttpOk(`${restRemoteUrl}/readyz`, 60_000, () => restRemote?.child.exitCode === null);
    const metricsUrls: Record<string, string> = { ...system.metricsUrls, 'rest-remote': `http://127.0.0.1:${remoteMetricsPort}/metrics` };

    // The docs-default baseline (bench/baseline): subgraph, then the gateway (it composes by introspecting the
    // subgraph at start), then the facade; same FerretDB and seeded users, same deployment environment.
    let baselineUrl = '';
    if (wanted('baseline.users.get')) {
      const startBaseline = async (name: string, script: string, env: Record<string, string>) => {
        const port = await freePort();
        const proc = startProcess(name, process.execPath, [join(rootDir, 'dist', 'tools', script)], {
          cwd: rootDir,
          env: { PATH: process.env['PATH'] ?? '', APOLLO_TELEMETRY_DISABLED: 'true', ...DEPLOYMENT, ...env, PORT: String(port) },
          logFile: join(tmp.path, `${name}.log`),
        });
        baseline.push(proc);
        await waitForPort(port, 60_000, () => proc.child.exitCode === null);
        return `http://127.0.0.1:${port}`;
      };
      const subgraphUrl = await startBaseline('baseline-users', 'bench-baseline-subgraph.js', { MONGO_URL: ferret.url });
      const gatewayUrl = await startBaseline('baseline-gateway', 'bench-baseline-gateway.js', { SUBGRAPH_URL: `${subgraphUrl}/` });
      baselineUrl = await startBaseline('baseline-facade', 'bench-baseline-facade.js', { GATEWAY_URL: `${gatewayUrl}/` });
      log(`docs-default baseline ready: facade ${baselineUrl} -> gateway ${gatewayUrl} -> subgraph ${subgraphUrl}`);
    }
    // The same system once more with every cache and deduplication off (UNCACHED_ENV), on the same databases.
    if (wanted('rest.users.get.uncached')) {
      const logDir = join(tmp.path, 'uncached');
      mkdirSync(logDir, { recursive: true });
      uncachedSystem = await startSystem({
        rootDir,
        mongoUrl: ferret.url,
        redisUrl: redis.url,
        jwtSecret,
        freePorts: true,
        logDir,
        env: { DATA_DIR: tmp.path, ...DEPLOYMENT, ...UNTHROTTLED, ...options.env, ...UNCACHED_ENV },
      });
      for (const [name, url] of Object.entries(uncachedSystem.metricsUrls)) metricsUrls[`${UNCACHED_PREFIX}${name}`] = url;
    }
    log(`system ready in ${((Date.now() - started) / 1000).toFixed(1)} s (rest ${system.urls.rest}, gateway ${system.urls.gateway}/graphql)`);

    const pids: Record<string, number | undefined> = {
      ...Object.fromEntries([...system.processes].map(([name, proc]) => [name, proc.child.pid])),
      ferretdb: ferret.process.child.pid,
      redis: redis.process.child.pid,
      direct: direct.child.pid,
      'rest-remote': restRemote.child.pid,
      ...Object.fromEntries(baseline.map((proc) => [proc.name, proc.child.pid])),
      ...Object.fromEntries([...(uncachedSystem?.processes ?? [])].map(([name, proc]) => [`${UNCACHED_PREFIX}${name}`, proc.child.pid])),
      'load-generator': process.pid,
    };

    // The readers' token: a real login of the seeded admin (also proves the seeded credentials work).
    const login = await fetch(`${system.urls.rest}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: seedUsername(1), password: SEED_PASSWORD }),
    });
    if (login.status !== 200) throw new Error(`login of the seeded admin failed: ${login.status} ${await login.text()}`);
    const token = ((await login.json()) as { access_token: string }).access_token;
    const bearer = { authorization: `Bearer ${token}` };
    if (options.hold) {
      log(`holding (Ctrl-C stops): direct ${directUrl}, rest-remote ${restRemoteUrl}, baseline ${baselineUrl || 'not started'}, mongo ${ferret.url}, pids ${JSON.stringify(pids)}`);
      log(`token: ${token}`);
      await new Promise(() => undefined);
    }
    const openapi = (await (await fetch(`${system.urls.rest}/openapi.json`)).json()) as { paths?: Record<string, Record<string, unknown>> };
    const graphql = (query: string, operationName: string, variables: Record<string, unknown>): RequestSpec => ({
      method: 'POST',
      path: '/graphql',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ operationName, query, variables }),
    });
    const within = (count: number) => (options.hot > 0 ? Math.min(options.hot, count) : count);
    const userId = () => randomInt(1, within(seed.users));
    const itemId = () => randomInt(1, within(seed.items));
    const idsNote = options.hot > 0 ? `ids 1..${options.hot} (see the hot-set note in docs/performance.md)` : 'ids over the whole data set';
    const runId = randomBytes(3).toString('hex');
    let created = 0;
    let itemPages: string[] = [];
    const ITEMS_FILTER = '/items/?price%5Blt%5D=100&pageSize=20';

    /** GET /users/{id} on a facade: the same read for both GATEWAY_MODEs. */
    const restUsersGet = {
      route: { path: '/users/{user_id}', method: 'get' },
      expectStatus: 200,
      next: () => ({ method: 'GET', path: `/users/${userId()}`, headers: bearer }),
      check: (body: unknown) => (has(body, ['username']) ? null : 'no username in the body'),
    } satisfies Partial<Scenario>;

    const scenarios: Scenario[] = [
      { name: 'rest.users.get', target: 'rest', ...restUsersGet, note: idsNote },
      {
        name: 'rest.users.get.uncached',
        target: 'rest-uncached',
        ...restUsersGet,
        note: `the same read on a second system with every cache and deduplication off (${Object.entries(UNCACHED_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}); ${idsNote}`,
      },
      {
        name: 'rest.users.get.remote',
        target: 'rest-remote',
        ...restUsersGet,
        note: `the same read from a facade with GATEWAY_MODE=remote (rest -> gateway -> users); ${idsNote}`,
      },
      {
        name: 'gateway.users.get',
        target: 'gateway',
        expectStatus: 200,
        next: () => graphql(GetUser.document, GetUser.name, { id: String(userId()), includeInactive: false }),
        check: (body) => (has(body, ['data', 'user', 'username']) ? null : `no data.user: ${JSON.stringify(body).slice(0, 200)}`),
        note: `the REST facade's own GetUser document, sent straight to the gateway; ${idsNote}`,
      },
      {
        name: 'direct.users.get',
        target: 'direct',
        expectStatus: 200,
        next: () => ({ method: 'GET', path: `/users/${userId()}` }),
        check: (body) => (has(body, ['username']) ? null : 'no username in the body'),
        note: `floor: express + mongodb findOne with a projection; no auth, validation, federation or logging; ${idsNote}`,
      },
      {
        name: 'baseline.users.get',
        target: 'baseline',
        expectStatus: 200,
        next: () => ({ method: 'GET', path: `/users/${userId()}` }),
        check: (body) => (has(body, ['username']) ? null : 'no username in the body'),
        note: `docs-default chain (bench/baseline): express facade -> @apollo/gateway (IntrospectAndCompose, RemoteGraphQLDataSource) -> @apollo/subgraph + findOne, all defaults, no auth; ${idsNote}`,
      },
      {
        name: 'rest.items.get',
        target: 'rest',
        route: { path: '/items/{item_id}', method: 'get' },
        expectStatus: 200,
        next: () => ({ method: 'GET', path: `/items/${itemId()}`, headers: bearer }),
        check: (body) => (has(body, ['name']) ? null : 'no name in the body'),
        note: `the REST item carries owner_id, not the owner; the federated owner join is gateway.items.get_with_owner; ${idsNote}`,
      },
      {
        name: 'rest.token',
        target: 'rest',
        route: { path: '/token', method: 'post' },
        expectStatus: 200,
        next: () => ({
          method: 'POST',
          path: '/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `username=${seedUsername(Math.max(2, userId()))}&password=${SEED_PASSWORD}`,
        }),
        check: (body) => (has(body, ['access_token']) ? null : 'no access_token'),
        note: `login: argon2id verification per request, a refresh token stored; users ${idsNote}`,
      },
      {
        name: 'rest.users.create',
        target: 'rest',
        route: { path: '/users/', method: 'post' },
        expectStatus: 201,
        next: () => {
          created += 1;
          const username = `bench_new_${runId}_${created}`;
          return {
            method: 'POST',
            path: '/users/',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ username, email: `${username}@bench.example.com`, password: 'new-password-1' }),
          };
        },
        check: (body) => (has(body, ['id']) ? null : `no id: ${JSON.stringify(body).slice(0, 200)}`),
        note: 'registration: argon2id hash (19 MiB, t=2) in the auth subgraph per request',
      },
      {
        name: 'gateway.items.get_with_owner',
        target: 'gateway',
        expectStatus: 200,
        next: () =>
          graphql('query ItemWithOwner($id: ID!) { item(id: $id) { id name price ownerId owner { id username email } } }', 'ItemWithOwner', {
            id: String(itemId()),
          }),
        check: (body) => (has(body, ['data', 'item', 'owner', 'username']) ? null : `no data.item.owner: ${JSON.stringify(body).slice(0, 200)}`),
        note: `items subgraph, then the users subgraph for Item.owner (an _entities fetch); ${idsNote}`,
      },
      {
        name: 'rest.users.get.full_range',
        target: 'rest',
        route: { path: '/users/{user_id}', method: 'get' },
        expectStatus: 200,
        connections: 10,
        fullRunOnly: true,
        next: () => ({ method: 'GET', path: `/users/${randomInt(1, seed.users)}`, headers: bearer }),
        check: (body) => (has(body, ['username']) ? null : 'no username in the body'),
        note: `ids over all ${seed.users} users at c=10: FerretDB v1 SQLite scans for an integer _id (database-bound)`,
      },
      {
        name: 'rest.items.list',
        target: 'rest',
        route: { path: '/items/', method: 'get' },
        expectStatus: 200,
        prepare: async () => {
          // The first page and the cursor pages after it: each request reads one of them.
          itemPages = [ITEMS_FILTER];
          let path = ITEMS_FILTER;
          for (let i = 0; i < 10; i += 1) {
            const response = await fetch(`${system!.urls.rest}${path}`, { headers: bearer });
            if (response.status !== 200) break;
            const next = ((await response.json()) as { pagination?: { nextPageToken?: string | null } }).pagination?.nextPageToken;
            if (!next) break;
            path = `${ITEMS_FILTER}&pageToken=${encodeURIComponent(next)}`;
            itemPages.push(path);
          }
        },
        next: () => ({ method: 'GET', path: itemPages[randomInt(0, itemPages.length - 1)] ?? ITEMS_FILTER, headers: bearer }),
        check: (body) => (has(body, ['pagination']) ? null : `no cursor envelope: ${JSON.stringify(body).slice(0, 200)}`),
        note:
          'price[lt]=100 (about 10% of the items), pageSize=20: the first page and the next 10 cursor pages; last, because on FerretDB v1 ' +
          'SQLite every listing is a scan and in-memory sort of all 100,000 items (slower than the 5 s subgraph deadline)',
      },
    ];

    const baseUrls = {
      rest: system.urls.rest,
      'rest-remote': restRemoteUrl,
      gateway: system.urls.gateway,
      direct: directUrl,
      baseline: baselineUrl,
      'rest-uncached': uncachedSystem?.urls.rest ?? '',
    };
    /** Every process's metrics scrape (those with metrics off or unreachable left out), for the cache hit rates. */
    const scrape = async (): Promise<Record<string, MetricSample[]>> => {
      const out: Record<string, MetricSample[]> = {};
      await Promise.all(
        Object.entries(metricsUrls).map(async ([name, url]) => {
          try {
            const response = await fetch(url);
            if (response.ok) out[name] = parsePrometheusText(await response.text());
          } catch {
            // METRICS_PORT=off: no hit rates, the run goes on.
          }
        }),
      );
      return out;
    };
    const sample = (): CpuTicks => {
      const out: CpuTicks = {};
      for (const [name, pid] of Object.entries(pids)) {
        const ticks = readTicks(pid);
        if (ticks !== undefined) out[name] = ticks;
      }
      return out;
    };
    /** Waits until the system's processes together use less than a quarter of a core (or the time is up). */
    const settle = async (maxMs: number) => {
      const until = Date.now() + maxMs;
      const busy = (ticks: CpuTicks) => Object.entries(ticks).filter(([name]) => name !== 'load-generator').reduce((sum, [, t]) => sum + t, 0);
      while (Date.now() < until) {
        const first = busy(sample());
        await new Promise((done) => setTimeout(done, 250));
        if ((busy(sample()) - first) / clk < 0.25 * 0.25) return;
      }
    };
    /** GraphQL answers errors with a 200: for the gateway scenarios a body with `errors` counts as an error too. */
    let graphqlErrors = 0;
    const load = (url: string, next: () => RequestSpec, seconds: number, connections: number, graphqlBodies: boolean) =>
      autocannon({
        url,
        connections,
        duration: seconds,
        timeout: 10,
        requests: [
          {
            setupRequest: (request) => ({ ...request, ...next() }),
            ...(graphqlBodies
              ? {
                  onResponse: (status: number, body: string) => {
                    if (status >= 200 && status < 300 && body.includes('"errors"')) graphqlErrors += 1;
                  },
                }
              : {}),
          },
        ],
      });

    const selected = scenarios.filter((scenario) => wanted(scenario.name));
    // Every process on the read paths runs warm before the first scenario (JIT, caches, connection pools), so the
    // first scenario in the list does not pay for the system's start-up; each scenario still has its own warm-up.
    for (const scenario of selected.filter((s) => PAIRED_SCENARIOS.includes(s.name))) {
      await load(baseUrls[scenario.target], scenario.next, options.warmupSeconds, options.connections, false);
    }
    log('system warmed up (the users.get paths)');

    /** Skips, settles, prepares, probes and warms up a scenario; null when it is skipped (its result is recorded). */
    const ready = async (scenario: Scenario): Promise<{ url: string; problem: string | null } | null> => {
      if (scenario.fullRunOnly && options.quick) {
        byName.set(scenario.name, skippedScenario(scenario.name, 'skipped: --quick'));
        return null;
      }
      if (scenario.route && !openapi.paths?.[scenario.route.path]?.[scenario.route.method]) {
        log(`${scenario.name}: skipped: route missing (${scenario.route.method.toUpperCase()} ${scenario.route.path})`);
        byName.set(scenario.name, skippedScenario(scenario.name, 'skipped: route missing'));
        return null;
      }
      // Requests still in flight from the previous scenario finish before this one starts.
      await settle(options.quick ? 2_000 : 10_000);
      await scenario.prepare?.();
      const url = baseUrls[scenario.target];
      const probe = scenario.next();
      const probeResponse = await fetch(`${url}${probe.path}`, { method: probe.method, headers: probe.headers ?? {}, body: probe.body ?? null });
      const probeBody: unknown = await probeResponse.json().catch(() => null);
      const problem =
        probeResponse.status !== scenario.expectStatus
          ? `probe answered ${probeResponse.status}: ${JSON.stringify(probeBody).slice(0, 300)}`
          : (scenario.check?.(probeBody) ?? null);
      if (problem) log(`${scenario.name}: PROBE FAILED: ${problem}`);
      await load(url, scenario.next, options.warmupSeconds, scenario.connections ?? options.connections, scenario.target === 'gateway');
      return { url, problem };
    };

    interface Measured {
      runs: LoadRun[];
      ticks: CpuTicks;
      loads: number[];
      /** Cache hits and misses per process over the measured runs (from the metrics scrapes around each). */
      cache: Record<string, CacheCount>;
    }
    const measuredNothing = (): Measured => ({ runs: [], ticks: {}, loads: [], cache: {} });
    /** One measured run, added to what the scenario measured before (its CPU ticks per process summed). */
    const measure = async (scenario: Scenario, url: string, seconds: number, into: Measured): Promise<void> => {
      into.loads.push(loadavg()[0] ?? 0);
      const scrapedBefore = await scrape();
      const before = sample();
      graphqlErrors = 0;
      const run = await load(url, scenario.next, seconds, scenario.connections ?? options.connections, scenario.target === 'gateway');
      const after = sample();
      addCacheCounts(scrapedBefore, await scrape(), into.cache);
      into.loads.push(loadavg()[0] ?? 0);
      for (const [name, start] of Object.entries(before)) {
        const end = after[name];
        if (end !== undefined) into.ticks[name] = (into.ticks[name] ?? 0) + (end - start);
      }
      into.runs.push({ requests: run.requests.total, durationSeconds: run.duration, p50: run.latency.p50, p99: run.latency.p99, errors: run.errors + graphqlErrors, non2xx: run.non2xx });
    };
    const record = (scenario: Scenario, measured: Measured, problem: string | null) => {
      const run = mergeRuns(measured.runs);
      const zero = Object.fromEntries(Object.keys(measured.ticks).map((name) => [name, 0]));
      const cpu = cpuPerRequest(zero, measured.ticks, run.requests, clk);
      const note = [scenario.note, measured.runs.length > 1 ? `${measured.runs.length} interleaved rounds` : undefined, problem ? `probe: ${problem}` : undefined];
      const result = summarizeRun(scenario.name, run, cpu, { note: note.filter(Boolean).join('; '), own: ownProcesses(scenario.target) });
      const load1m = measured.loads.reduce((sum, l) => sum + l, 0) / Math.max(1, measured.loads.length);
      byName.set(scenario.name, { ...result, load_avg_1m: Math.round(load1m * 100) / 100, ...(Object.keys(measured.cache).length ? { cache: measured.cache } : {}) });
      log(`${scenario.name}: ${result.rps} req/s, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms, errors ${result.errors}, app CPU ${result.cpu_us_per_req_app} us/req`);
    };

    const byName = new Map<string, ScenarioResult>();
    // The users.get paths are compared with each other (the ratios): they run in interleaved rounds, so a slow spell of
    // the machine lands on all of them alike instead of on whichever ran then.
    const paired = selected.filter((scenario) => PAIRED_SCENARIOS.includes(scenario.name));
    const rounds = options.quick ? 1 : PAIRED_ROUNDS;
    const pairedReady = new Map<Scenario, { url: string; problem: string | null }>();
    for (const scenario of paired) {
      const prepared = await ready(scenario);
      if (prepared) pairedReady.set(scenario, prepared);
    }
    const pairedMeasured = new Map<Scenario, Measured>([...pairedReady.keys()].map((scenario) => [scenario, measuredNothing()]));
    for (let round = 0; round < rounds; round += 1) {
      for (const [scenario, { url }] of pairedReady) {
        await settle(options.quick ? 2_000 : 10_000);
        await measure(scenario, url, options.durationSeconds / rounds, pairedMeasured.get(scenario)!);
      }
    }
    for (const [scenario, measured] of pairedMeasured) record(scenario, measured, pairedReady.get(scenario)!.problem);

    for (const scenario of selected.filter((s) => !PAIRED_SCENARIOS.includes(s.name))) {
      const prepared = await ready(scenario);
      if (!prepared) continue;
      const measured = measuredNothing();
      await measure(scenario, prepared.url, options.durationSeconds, measured);
      record(scenario, measured, prepared.problem);
    }
    const results = selected.map((scenario) => byName.get(scenario.name)).filter((r): r is ScenarioResult => r !== undefined);

    const ratios = computeRatios(results);
    const targets = checkTargets(results, ratios);
    const report = {
      generated_at: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? null, node: process.version, load_avg_start: loadAtStart, load_avg_end: loadavg() },
      settings: {
        quick: options.quick,
        connections: options.connections,
        warmup_s: options.warmupSeconds,
        duration_s: options.durationSeconds,
        seed,
        hot_ids: options.hot,
        env: { ...DEPLOYMENT, ...UNTHROTTLED, ...options.env },
        uncached_env: UNCACHED_ENV,
        baseline: 'bench/baseline: express facade -> @apollo/gateway (IntrospectAndCompose) -> @apollo/subgraph, defaults',
        references: REFERENCES,
      },
      scenarios: results,
      ratios,
      targets,
    };
    const out = options.out ?? join(rootDir, 'bench', 'results', 'latest.json');
    mkdirSync(resolve(out, '..'), { recursive: true });
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`\n${formatTable(results, ratios, targets)}\n\n`);
    log(`CPU is us per request per process ('app us': rest+gateway+subgraphs, databases excluded); ferretdb and redis shown apart`);
    log(`wrote ${out} in ${((Date.now() - started) / 1000).toFixed(0)} s; load average now ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
