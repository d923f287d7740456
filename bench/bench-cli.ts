/**
 * `npm run bench`: boots the real system (FerretDB, redis-server and the six processes from dist/, as `npm start`
 * does, on free ports) over a fresh, seeded database, beside the floor server and the peers (the docs-default Apollo
 * chain, and Hive Gateway over our own subgraphs with the same minimal facade in front), then runs each scenario
 * and samples every process's CPU from /proc. The scenarios that are compared with each other run in alternating
 * rounds and each reports the median of its rounds. Writes bench/results/latest.json and prints a table with the
 * ratios and the acceptance checks (docs/performance.md).
 *
 *   npm run bench                  # full run (about 16 minutes by its durations: docs/performance.md)
 *   npm run bench -- --quick       # one short round of everything (5-6 minutes on a busy machine), noisy numbers
 *   npm run bench -- --quick --only='*.users.get'               # one group; `*` matches any characters
 *   npm run bench -- --only=rest.users.get,gateway.users.get --env GATEWAY_IN_PROCESS=true --out=/tmp/a.json
 *   npm run bench -- --quick --uncached  # include the uncached system (every cache and dedup off) in a short run too
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
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
  formatTable,
  IDLE_WINDOW_MS,
  IDLE_WINDOWS,
  idleAfterMs,
  matchesOnly,
  ownProcesses,
  readerProcess,
  RATIOS,
  skippedScenario,
  summarizeRounds,
  UNCACHED_PREFIX,
  type CacheCount,
  type CpuTicks,
  type LoadRun,
  type MetricSample,
  type Round,
  type ScenarioResult,
  type Target,
} from './bench-results';
import { runStreams, type RequestSpec, type Stream } from './load';
import { readTicks, ticksPerSecond } from './proc-stats';

const { GetUser } = OPERATIONS;

const log = (message: string) => process.stdout.write(`[bench] ${message}\n`);

interface Options {
  quick: boolean;
  only: string[] | null;
  env: Record<string, string>;
  out: string | null;
  warmupSeconds: number;
  durationSeconds: number;
  /** Alternating rounds of the compared scenarios (3; 1 with --quick); each scenario reports the median of its rounds. */
  rounds: number;
  connections: number;
  /** Boot and seed, print the URLs and the token, then wait for Ctrl-C (for profiling by hand). */
  hold: boolean;
  /**
   * Reads pick ids in 1..hot (0: the whole data set); writes pick ids in hot+1..2*hot (other records of the same type).
   * FerretDB v1's SQLite backend pushes down only a string or ObjectId `_id` equality: any other filter, an integer
   * `_id` included, is a scan in insertion order that stops at the first match, so a read of id N costs N documents
   * decoded. A small hot set keeps the database out of the way of the application path under test; the
   * `*.full_range` scenario shows the scan (docs/performance.md).
   */
  hot: number;
  /**
   * Run rest.users.get a second time on a second system with every cache and deduplication off (UNCACHED_ENV):
   * true with --uncached, false with --no-uncached, null (the default) = in a full run, not with --quick.
   */
  uncached: boolean | null;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { quick: false, only: null, env: {}, out: null, warmupSeconds: 3, durationSeconds: 15, rounds: 3, connections: 50, hold: false, hot: 10, uncached: null };
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
    else if (arg.startsWith('--rounds')) options.rounds = Number(value('--rounds'));
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
    options.rounds = 1;
  }
  if (!(options.rounds >= 1)) throw new Error('--rounds takes a number >= 1');
  return options;
}

/**
 * The groups of scenarios compared with each other: each group runs in alternating rounds (every scenario of the group
 * once per round, for the duration over the rounds; the write scenarios for the whole duration each round), so a slow
 * spell of the machine lands on all of them alike. `single`: one run each, nothing compared.
 */
type Group = 'reads' | 'join' | 'mixed' | 'writes' | 'single';
/**
 * The order the groups run in: the compared reads first; the scenarios that write after them (on FerretDB v1 a write is
 * a collection pass, and work a write path leaves behind lands in whatever runs next); the singles last (registration
 * writes, the full-range read and the listing scan the collections).
 */
const PHASES: readonly Group[] = ['reads', 'join', 'mixed', 'writes', 'single'];

/**
 * Every setting that switches a cache or a deduplication off, for the uncached system (issue 19: "with every cache
 * and deduplication switched off, the REST read still >= 1.5x the docs-default chain"). The one place to extend when a
 * new cache or dedup lands; a process that does not know a variable ignores it.
 */
const UNCACHED_ENV: Record<string, string> = {
  // hcache: the read cache (facade / gateway / subgraphs).
  READ_CACHE: 'off',
  // hperf: identical in-flight reads deduplicated (without a generation only behind the fetch in flight: ADR 0017).
  SUBGRAPH_DEDUP: 'off',
};
/**
 * The read path without the read cache as a deployment with `READ_CACHE=off` runs it: a second facade on the uncached
 * system's subgraphs with the in-flight deduplication at its default (issue 29's "uncached reads" against the Hive
 * facade, whose gateway deduplicates by default too).
 */
const NOCACHE_FACADE_ENV: Record<string, string> = { SUBGRAPH_DEDUP: 'on' };

/** Enough that no scenario is throttled (the limits themselves are exercised by the e2e tests). */
const UNTHROTTLED = { RATE_LIMIT_POINTS: '1000000000', LOGIN_RATE_LIMIT_POINTS: '1000000000' };
/**
 * What a deployment runs: production mode (no per-request MongoDB command monitoring, no sandbox); `--env` overrides.
 * The bench's FerretDB is one standalone server, which production otherwise refuses (ADR 0026).
 */
const DEPLOYMENT = { NODE_ENV: 'production', MONGO_ALLOW_STANDALONE: 'true' };

/**
 * The mixed scenarios (issue 29): readers of the hot set and writers of other records of the same type, side by side
 * on MIXED_CONNECTIONS connections split by the mix (95/5: 38 readers and 2 writers; 80/20: 32 and 8), each a closed
 * loop. The split is of the clients, not of each client's requests: on FerretDB v1 a write costs a whole-collection
 * pass (~0.5 s) and a read of the hot set ~1 ms, so a 5 % chance per request in one closed loop would leave every
 * connection waiting on writes and make the reads' rate 19x the writes' whatever the read path costs. The share of
 * answers that were writes is reported beside the result.
 */
const MIXES = [
  { name: 'mixed_95_5', writeShare: 0.05 },
  { name: 'mixed_80_20', writeShare: 0.2 },
] as const;
const MIXED_CONNECTIONS = 40;
/** The write scenarios' concurrencies (issue 29: c=1 and c=16). */
const WRITE_CONCURRENCIES = [1, 16] as const;
/** After a write load: how long FerretDB's CPU is watched for it to go idle (idleAfterMs). */
const AFTER_LOAD_OBSERVE_MS = { quick: 3_000, full: 10_000 };
/**
 * How long each group of processes may take to be ready: on the seeded data a subgraph's start (index preparation over
 * 100,000 items) took up to ~50 s on a busy machine, past startSystem's default minute.
 */
const READY_TIMEOUT_MS = 180_000;
/** A request not answered within this counts as an error (the client's timeout). */
const CLIENT_TIMEOUT_MS = 10_000;

interface Scenario {
  name: string;
  target: Target;
  group: Group;
  /** The OpenAPI path and method the scenario needs; absent in openapi.json: "skipped: route missing". */
  route?: { path: string; method: 'get' | 'post' | 'patch' };
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
  /** Driven by runStreams instead of autocannon: several streams at once, or writes whose every answer is awaited. */
  streams?: () => Stream[];
  /** The stream the scenario's headline figures are (default: the first). */
  main?: string;
  /** Watch FerretDB's CPU after the last answer (the write scenarios). */
  afterLoad?: boolean;
  /** GraphQL: a 200 whose body has `errors` is an error too. */
  graphql?: boolean;
}

const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

const has = (body: unknown, path: readonly string[]): boolean => {
  let current: unknown = body;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || !(key in current)) return false;
    current = (current as Record<string, unknown>)[key];
  }
  return current !== null && current !== undefined;
};

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * startSystem, tried up to three times when a process exits before it is ready: the free ports are picked before the
 * processes start, and on a busy machine a process can take a minute to get to listen, long enough for another
 * program to take its port (EADDRINUSE; the run's kept logs showed it). startSystem stops what it started on failure.
 */
async function startSystemRetrying(options: Parameters<typeof startSystem>[0]): Promise<RunningSystem> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startSystem(options);
    } catch (error) {
      if (attempt >= 3 || !(error instanceof Error && /exited before it was ready/.test(error.message))) throw error;
      log(`a process exited before it was ready (${error.message}); starting the system again (attempt ${attempt + 1} of 3)`);
    }
  }
}

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
  const wanted = (name: string) =>
    matchesOnly(name, options.only) && ((name !== 'rest.users.get.uncached' && name !== 'rest.users.get.nocache') || includeUncached);
  if (wanted('rest.users.get.uncached')) log(`uncached system: rest.users.get again with ${Object.entries(UNCACHED_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}`);

  const tmp = makeTempDir('api-bench-');
  const infra: RunningInfra[] = [];
  let system: RunningSystem | undefined;
  let direct: ManagedProcess | undefined;
  let restRemote: ManagedProcess | undefined;
  let uncachedSystem: RunningSystem | undefined;
  let restNocache: ManagedProcess | undefined;
  /** The peers' processes (baseline chain, Hive Gateway and its facade), stopped in reverse order. */
  const peers: ManagedProcess[] = [];
  let stopping = false;
  /** Stops everything; after a failed run the processes' logs are kept (copied out of the temp dir) and named. */
  const cleanup = async (failed = false) => {
    if (stopping) return;
    stopping = true;
    await direct?.stop('SIGTERM', 5_000);
    await restRemote?.stop('SIGTERM', 5_000);
    for (const proc of [...peers].reverse()) await proc.stop('SIGTERM', 5_000);
    await restNocache?.stop('SIGTERM', 5_000);
    await uncachedSystem?.stop();
    await system?.stop();
    await Promise.all(infra.map((i) => i.process.stop('SIGTERM', 5_000)));
    if (failed) {
      const kept = mkdtempSync(join(tmpdir(), 'api-bench-logs-'));
      cpSync(tmp.path, kept, { recursive: true, filter: (source) => !/[/\\](ferretdb|redis)$/.test(source) });
      log(`the processes' logs are kept in ${kept}`);
    }
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
    // ... and WEBHOOK_SECRETS_KEY for the events service and the delivery worker (without it they refuse to start).
    options.env['WEBHOOK_SECRETS_KEY'] ??= randomBytes(32).toString('base64url');
    system = await startSystemRetrying({
      rootDir,
      mongoUrl: ferret.url,
      redisUrl: redis.url,
      jwtSecret,
      freePorts: true,
      logDir: tmp.path,
      readyTimeoutMs: READY_TIMEOUT_MS,
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
    await waitForHttpOk(`${restRemoteUrl}/readyz`, READY_TIMEOUT_MS, () => restRemote?.child.exitCode === null);
    const metricsUrls: Record<string, string> = { ...system.metricsUrls, 'rest-remote': `http://127.0.0.1:${remoteMetricsPort}/metrics` };

    /** Starts one of the bench's own scripts (dist/tools) or a peer's command; resolves once its port answers. */
    const startPeer = async (name: string, args: string[], env: Record<string, string>) => {
      const port = await freePort();
      const proc = startProcess(name, process.execPath, args, {
        cwd: rootDir,
        env: { PATH: process.env['PATH'] ?? '', ...DEPLOYMENT, ...env, PORT: String(port) },
        logFile: join(tmp.path, `${name}.log`),
      });
      peers.push(proc);
      await waitForPort(port, READY_TIMEOUT_MS, () => proc.child.exitCode === null);
      return `http://127.0.0.1:${port}`;
    };
    const tool = (script: string) => join(rootDir, 'dist', 'tools', script);
    const allScenarioNames = (target: string) => [`${target}.users.get`, ...MIXES.map((m) => `${target}.users.${m.name}`)];

    // The docs-default baseline (bench/baseline): the subgraphs, then the gateway (it composes by introspecting them
    // at start), then the facade; same FerretDB and seeded data, same deployment environment.
    let baselineUrl = '';
    let baselineGatewayUrl = '';
    if ([...allScenarioNames('baseline'), 'baseline-gateway.items.get_with_owner'].some(wanted)) {
      const apolloOff = { APOLLO_TELEMETRY_DISABLED: 'true' };
      const usersUrl = await startPeer('baseline-users', [tool('bench-baseline-subgraph.js')], { ...apolloOff, SUBGRAPH: 'users', MONGO_URL: ferret.url });
      const itemsUrl = await startPeer('baseline-items', [tool('bench-baseline-subgraph.js')], { ...apolloOff, SUBGRAPH: 'items', MONGO_URL: ferret.url });
      baselineGatewayUrl = await startPeer('baseline-gateway', [tool('bench-baseline-gateway.js')], { ...apolloOff, USERS_SUBGRAPH_URL: `${usersUrl}/`, ITEMS_SUBGRAPH_URL: `${itemsUrl}/` });
      baselineUrl = await startPeer('baseline-facade', [tool('bench-baseline-facade.js')], { GATEWAY_URL: `${baselineGatewayUrl}/` });
      log(`docs-default baseline ready: facade ${baselineUrl} -> gateway ${baselineGatewayUrl} -> subgraphs ${usersUrl}, ${itemsUrl}`);
    }
    // Hive Gateway over our supergraph and our subgraph processes (bench/hive), its CLI as its docs run a supergraph
    // file; then the same minimal facade in front of it. Only loopback URLs, no Hive or Apollo token: nothing reports.
    let hiveUrl = '';
    let hiveGatewayUrl = '';
    if ([...allScenarioNames('hive'), 'hive-gateway.users.get', 'hive-gateway.items.get_with_owner'].some(wanted)) {
      const subgraphUrls = Object.fromEntries(
        (['users', 'items', 'auth', 'posts'] as const).map((name) => [`${name.toUpperCase()}_SUBGRAPH_URL`, `${system!.urls[name]}/graphql`]),
      );
      const port = await freePort();
      const hive = startProcess(
        'hive-gateway',
        process.execPath,
        [
          join(rootDir, 'node_modules', '@graphql-hive', 'gateway', 'dist', 'bin.js'),
          'supergraph',
          join(rootDir, 'dist', 'apps', 'gateway', 'supergraph.graphql'),
          '--config-path',
          tool('bench-hive-gateway.config.js'),
          '--host',
          '127.0.0.1',
          '--port',
          String(port),
        ],
        {
          cwd: rootDir,
          env: { PATH: process.env['PATH'] ?? '', ...DEPLOYMENT, ...subgraphUrls, SUBGRAPH_SECRET: options.env['SUBGRAPH_SECRET'], HIVE_LOG_LEVEL: 'info' },
          logFile: join(tmp.path, 'hive-gateway.log'),
        },
      );
      peers.push(hive);
      hiveGatewayUrl = `http://127.0.0.1:${port}`;
      await waitForHttpOk(`${hiveGatewayUrl}/readiness`, READY_TIMEOUT_MS, () => hive.child.exitCode === null);
      hiveUrl = await startPeer('hive-facade', [tool('bench-baseline-facade.js')], { GATEWAY_URL: `${hiveGatewayUrl}/graphql` });
      log(`Hive Gateway ready: facade ${hiveUrl} -> Hive Gateway ${hiveGatewayUrl}/graphql -> our subgraphs`);
    }
    // The same system once more with every cache and deduplication off (UNCACHED_ENV), on the same databases.
    let restNocacheUrl = '';
    if (wanted('rest.users.get.uncached') || wanted('rest.users.get.nocache')) {
      const logDir = join(tmp.path, 'uncached');
      mkdirSync(logDir, { recursive: true });
      uncachedSystem = await startSystemRetrying({
        rootDir,
        mongoUrl: ferret.url,
        redisUrl: redis.url,
        jwtSecret,
        freePorts: true,
        logDir,
        readyTimeoutMs: READY_TIMEOUT_MS,
        env: { DATA_DIR: tmp.path, ...DEPLOYMENT, ...UNTHROTTLED, ...options.env, ...UNCACHED_ENV },
      });
      for (const [name, url] of Object.entries(uncachedSystem.metricsUrls)) metricsUrls[`${UNCACHED_PREFIX}${name}`] = url;
      // Its second facade: the cache off, the deduplication at its default (NOCACHE_FACADE_ENV).
      const nocachePort = await freePort();
      const nocacheMetricsPort = await freePort();
      restNocache = startApp('rest', {
        rootDir,
        env: {
          ...appEnvironment('rest', uncachedSystem.ports, uncachedSystem.env),
          PORT: String(nocachePort),
          ...NOCACHE_FACADE_ENV,
          ...(uncachedSystem.env['METRICS_PORT'] === 'off' ? {} : { METRICS_PORT: String(nocacheMetricsPort) }),
        },
        logDir,
        logName: 'rest-nocache',
      });
      restNocacheUrl = `http://127.0.0.1:${nocachePort}`;
      await waitForHttpOk(`${restNocacheUrl}/readyz`, READY_TIMEOUT_MS, () => restNocache?.child.exitCode === null);
      metricsUrls[`${UNCACHED_PREFIX}rest-nocache`] = `http://127.0.0.1:${nocacheMetricsPort}/metrics`;
    }
    log(`system ready in ${((Date.now() - started) / 1000).toFixed(1)} s (rest ${system.urls.rest}, gateway ${system.urls.gateway}/graphql)`);

    const pids: Record<string, number | undefined> = {
      ...Object.fromEntries([...system.processes].map(([name, proc]) => [name, proc.child.pid])),
      ferretdb: ferret.process.child.pid,
      redis: redis.process.child.pid,
      direct: direct.child.pid,
      'rest-remote': restRemote.child.pid,
      ...Object.fromEntries(peers.map((proc) => [proc.name, proc.child.pid])),
      ...Object.fromEntries([...(uncachedSystem?.processes ?? [])].map(([name, proc]) => [`${UNCACHED_PREFIX}${name}`, proc.child.pid])),
      ...(restNocache ? { [`${UNCACHED_PREFIX}rest-nocache`]: restNocache.child.pid } : {}),
      'load-generator': process.pid,
    };

    // The readers' and writers' token: a real login of the seeded admin (also proves the seeded credentials work).
    const login = await fetch(`${system.urls.rest}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: seedUsername(1), password: SEED_PASSWORD }),
    });
    if (login.status !== 200) throw new Error(`login of the seeded admin failed: ${login.status} ${await login.text()}`);
    const token = ((await login.json()) as { access_token: string }).access_token;
    const bearer = { authorization: `Bearer ${token}` };
    if (options.hold) {
      log(`holding (Ctrl-C stops): direct ${directUrl}, rest-remote ${restRemoteUrl}, baseline ${baselineUrl || 'not started'}, hive ${hiveUrl || 'not started'}, mongo ${ferret.url}, pids ${JSON.stringify(pids)}`);
      log(`token: ${token}`);
      await new Promise(() => undefined);
    }
    const openapi = (await (await fetch(`${system.urls.rest}/openapi.json`)).json()) as { paths?: Record<string, Record<string, unknown>> };
    const graphql = (query: string, operationName: string, variables: Record<string, unknown>, path = '/graphql', headers: Record<string, string> = bearer): RequestSpec => ({
      method: 'POST',
      path,
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ operationName, query, variables }),
    });
    const within = (count: number) => (options.hot > 0 ? Math.min(options.hot, count) : count);
    const userId = () => randomInt(1, within(seed.users));
    const itemId = () => randomInt(1, within(seed.items));
    /** The records the writes touch: the next `hot` ids after the hot set (11..20), never read by the read streams. */
    const writtenId = () => randomInt(within(seed.users) + 1, within(seed.users) + Math.max(options.hot, 10));
    const idsNote = options.hot > 0 ? `ids 1..${options.hot} (see the hot-set note in docs/performance.md)` : 'ids over the whole data set';
    const runId = randomBytes(3).toString('hex');
    let created = 0;
    let written = 0;
    let itemPages: string[] = [];
    const ITEMS_FILTER = '/items/?price%5Blt%5D=100&pageSize=20';
    /** Issue 27's pages of 100 items: the first and the cursor pages after it, plain and with `expand=owner`. */
    const PAGES_OF_100 = '/items/?price%5Blt%5D=100&pageSize=100';
    const pagesOf100: Record<'plain' | 'expanded', string[]> = { plain: [], expanded: [] };
    /** Reads `first` and the pages after it by their nextPageToken, up to `count` pages: the paths of those answered. */
    const cursorPages = async (first: string, count: number): Promise<string[]> => {
      const pages: string[] = [];
      let path: string | null = first;
      while (path !== null && pages.length < count) {
        const response: Response = await fetch(`${system!.urls.rest}${path}`, { headers: bearer });
        if (response.status !== 200) break;
        pages.push(path);
        const next: string | null | undefined = ((await response.json()) as { pagination?: { nextPageToken?: string | null } }).pagination
          ?.nextPageToken;
        path = next ? `${first}&pageToken=${encodeURIComponent(next)}` : null;
      }
      return pages;
    };
    const pageOf100 = (kind: 'plain' | 'expanded') => () => ({
      method: 'GET' as const,
      path: pagesOf100[kind][randomInt(0, pagesOf100[kind].length - 1)] ?? PAGES_OF_100,
      headers: bearer,
    });
    const pageCheck = (expanded: boolean) => (body: unknown) => {
      const records = (body as { data?: Array<Record<string, unknown>> } | null)?.data;
      if (!Array.isArray(records) || records.length !== 100) return `not a page of 100 items: ${JSON.stringify(body).slice(0, 200)}`;
      return expanded && !records.every((record) => has(record, ['owner', 'username'])) ? 'an item without its expanded owner' : null;
    };
    /**
     * Both clients measure the steady state of a listing a client pages through: the pages and their owners once read
     * (each page's first read scans all 100,000 items on FerretDB v1, beyond the default 5 s subgraph deadline: run
     * the pair with `--env SUBGRAPH_TIMEOUT_MS=60000 --env READ_CACHE_TTL_MS=600000`: the read cache keeps
     * an answer 5 s by default), so what differs is the client's round trips and the work per page.
     */
    const warmOwners = async (pages: readonly string[]) => {
      const owners = new Set<number>();
      for (const path of pages) {
        const response = await fetch(`${system!.urls.rest}${path}`, { headers: bearer });
        if (response.status !== 200) continue;
        for (const item of ((await response.json()) as { data?: Array<{ owner_id: number }> }).data ?? []) owners.add(item.owner_id);
      }
      const queue = [...owners];
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          for (let id = queue.pop(); id !== undefined; id = queue.pop()) await fetch(`${system!.urls.rest}/users/${id}`, { headers: bearer });
        }),
      );
    };
    const pagesNote =
      'pages of 100 items (price[lt]=100, pageSize=100: the first and the next cursor page) with their owners, at c=10, pages and owners read once before';

    /** GET /users/{id} on a facade: the same read for both GATEWAY_MODEs and the peers' facades. */
    const restUsersGet = {
      route: { path: '/users/{user_id}', method: 'get' },
      expectStatus: 200,
      next: () => ({ method: 'GET', path: `/users/${userId()}`, headers: bearer }),
      check: (body: unknown) => (has(body, ['username']) ? null : 'no username in the body'),
    } satisfies Partial<Scenario>;
    /** PATCH of one user other than the hot set's (a new full name each time): the same request on every facade. */
    const userWrite = (): RequestSpec => {
      written += 1;
      return { method: 'PATCH', path: `/users/${writtenId()}`, headers: { ...bearer, 'content-type': 'application/json' }, body: JSON.stringify({ full_name: `Bench ${runId} ${written}` }) };
    };
    const itemWrite = (): RequestSpec => ({
      method: 'PATCH',
      path: `/items/${writtenId()}`,
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ price: randomInt(100, 99_900) / 100 }),
    });
    const ITEM_WITH_OWNER = 'query ItemWithOwner($id: ID!) { item(id: $id) { id name price ownerId owner { id username email } } }';
    const itemWithOwner = {
      group: 'join',
      expectStatus: 200,
      graphql: true,
      check: (body: unknown) => (has(body, ['data', 'item', 'owner', 'username']) ? null : `no data.item.owner: ${JSON.stringify(body).slice(0, 200)}`),
    } satisfies Partial<Scenario>;

    const peerNote = {
      baseline: 'docs-default chain (bench/baseline): express facade -> @apollo/gateway (IntrospectAndCompose, RemoteGraphQLDataSource) -> @apollo/subgraph + the driver, all defaults, no auth',
      hive: 'the same express facade -> Hive Gateway (its CLI, defaults, our supergraph) -> our subgraphs; the bearer token passed on, each subgraph verifies it',
    };
    const mixedScenarios: Scenario[] = MIXES.flatMap((mix) =>
      (['rest', 'baseline', 'hive'] as const).map((target) => {
        const writers = Math.round(MIXED_CONNECTIONS * mix.writeShare);
        return {
          name: `${target}.users.${mix.name}`,
          target,
          group: 'mixed' as const,
          ...(target === 'rest' ? { route: { path: '/users/{user_id}', method: 'patch' as const } } : {}),
          expectStatus: 200,
          next: restUsersGet.next,
          check: restUsersGet.check,
          main: 'reads',
          streams: () => [
            { name: 'reads', connections: MIXED_CONNECTIONS - writers, next: restUsersGet.next, expectStatus: 200 },
            { name: 'writes', connections: writers, next: userWrite, expectStatus: 200 },
          ],
          note: `${MIXED_CONNECTIONS - writers} connections read users ${idsNote} while ${writers} write (PATCH full_name) users ${within(seed.users) + 1}..${within(seed.users) + Math.max(options.hot, 10)}; ${
            target === 'rest' ? 'our facade' : peerNote[target]
          }`,
        };
      }),
    );
    const writeScenarios: Scenario[] = (['users', 'items'] as const).flatMap((resource) =>
      WRITE_CONCURRENCIES.flatMap((connections) =>
        (['direct', 'rest'] as const).map((target) => ({
          name: `${target}.${resource}.patch.c${connections}`,
          target,
          group: 'writes' as const,
          ...(target === 'rest' ? { route: { path: resource === 'users' ? '/users/{user_id}' : '/items/{item_id}', method: 'patch' as const } } : {}),
          expectStatus: 200,
          next: resource === 'users' ? userWrite : itemWrite,
          afterLoad: true,
          streams: () => [{ name: 'main', connections, next: resource === 'users' ? userWrite : itemWrite, expectStatus: 200 }],
          note:
            target === 'direct'
              ? `floor: one updateOne by the same integer id (express + driver, nothing else), c=${connections}`
              : `PATCH /${resource}/{id} (${resource === 'users' ? 'full_name' : 'price'}) through our facade, no If-Match, c=${connections}`,
        })),
      ),
    );

    const scenarios: Scenario[] = [
      { name: 'rest.users.get', target: 'rest', group: 'reads', ...restUsersGet, note: idsNote },
      {
        name: 'rest.users.get.uncached',
        target: 'rest-uncached',
        group: 'reads',
        ...restUsersGet,
        note: `the same read on a second system with every cache and deduplication off (${Object.entries(UNCACHED_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}); ${idsNote}`,
      },
      {
        name: 'rest.users.get.nocache',
        target: 'rest-nocache',
        group: 'reads',
        ...restUsersGet,
        note: `the same read through a facade with READ_CACHE=off and ${Object.entries(NOCACHE_FACADE_ENV).map(([k, v]) => `${k}=${v}`).join(' ')} (the default: without a generation a read shares only the fetch sent after it arrived) on the uncached system's subgraphs; ${idsNote}`,
      },
      {
        name: 'rest.users.get.remote',
        target: 'rest-remote',
        group: 'reads',
        ...restUsersGet,
        note: `the same read from a facade with GATEWAY_MODE=remote (rest -> gateway -> users); ${idsNote}`,
      },
      {
        name: 'gateway.users.get',
        target: 'gateway',
        group: 'reads',
        expectStatus: 200,
        graphql: true,
        next: () => graphql(GetUser.document, GetUser.name, { id: String(userId()), includeInactive: false }),
        check: (body) => (has(body, ['data', 'user', 'username']) ? null : `no data.user: ${JSON.stringify(body).slice(0, 200)}`),
        note: `the REST facade's own GetUser document, sent straight to the gateway; ${idsNote}`,
      },
      {
        name: 'direct.users.get',
        target: 'direct',
        group: 'reads',
        expectStatus: 200,
        next: () => ({ method: 'GET', path: `/users/${userId()}` }),
        check: (body) => (has(body, ['username']) ? null : 'no username in the body'),
        note: `floor: express + mongodb findOne with a projection; no auth, validation, federation or logging; ${idsNote}`,
      },
      {
        name: 'baseline.users.get',
        target: 'baseline',
        group: 'reads',
        ...restUsersGet,
        note: `${peerNote.baseline}; ${idsNote}`,
      },
      { name: 'hive.users.get', target: 'hive', group: 'reads', ...restUsersGet, note: `${peerNote.hive}; ${idsNote}` },
      {
        name: 'hive-gateway.users.get',
        target: 'hive-gateway',
        group: 'reads',
        expectStatus: 200,
        graphql: true,
        next: () => graphql(GetUser.document, GetUser.name, { id: String(userId()), includeInactive: false }),
        check: (body) => (has(body, ['data', 'user', 'username']) ? null : `no data.user: ${JSON.stringify(body).slice(0, 200)}`),
        note: `our GetUser document sent to Hive Gateway (our supergraph, our subgraphs); ${idsNote}`,
      },
      {
        name: 'gateway.items.get_with_owner',
        target: 'gateway',
        ...itemWithOwner,
        next: () => graphql(ITEM_WITH_OWNER, 'ItemWithOwner', { id: String(itemId()) }),
        note: `items subgraph, then the users subgraph for Item.owner (an _entities fetch); ${idsNote}`,
      },
      {
        name: 'baseline-gateway.items.get_with_owner',
        target: 'baseline-gateway',
        ...itemWithOwner,
        next: () => graphql(ITEM_WITH_OWNER, 'ItemWithOwner', { id: String(itemId()) }, '/', {}),
        note: `the docs-default gateway: baseline items subgraph, then an _entities fetch on the baseline users subgraph (findOne per reference); ${idsNote}`,
      },
      {
        name: 'hive-gateway.items.get_with_owner',
        target: 'hive-gateway',
        ...itemWithOwner,
        next: () => graphql(ITEM_WITH_OWNER, 'ItemWithOwner', { id: String(itemId()) }),
        note: `Hive Gateway over our items and users subgraphs; ${idsNote}`,
      },
      {
        name: 'rest.items.get',
        target: 'rest',
        group: 'single',
        route: { path: '/items/{item_id}', method: 'get' },
        expectStatus: 200,
        next: () => ({ method: 'GET', path: `/items/${itemId()}`, headers: bearer }),
        check: (body) => (has(body, ['name']) ? null : 'no name in the body'),
        note: `the REST item carries owner_id, not the owner; the federated owner join is gateway.items.get_with_owner; ${idsNote}`,
      },
      {
        name: 'rest.token',
        target: 'rest',
        group: 'single',
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
        group: 'single',
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
        name: 'rest.users.get.full_range',
        target: 'rest',
        group: 'single',
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
        group: 'single',
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
      {
        name: 'rest.items.list.expand',
        target: 'rest',
        // 'single': prepared one after the other (no shared warm-up that would read the uncached pages at c=50).
        group: 'single',
        route: { path: '/items/', method: 'get' },
        expectStatus: 200,
        connections: 10,
        prepare: async () => {
          pagesOf100.expanded = await cursorPages(`${PAGES_OF_100}&expand=owner`, 2);
        },
        next: pageOf100('expanded'),
        check: pageCheck(true),
        streams: () => [{ name: 'pages', connections: 10, next: pageOf100('expanded'), expectStatus: 200 }],
        note: `${pagesNote}: ONE request per page (expand=owner, one gateway operation); issue 27, against rest.items.list.n_plus_1`,
      },
      {
        name: 'rest.items.list.n_plus_1',
        target: 'rest',
        // 'single': prepared one after the other (no shared warm-up that would read the uncached pages at c=50).
        group: 'single',
        route: { path: '/items/', method: 'get' },
        expectStatus: 200,
        connections: 10,
        prepare: async () => {
          pagesOf100.plain = await cursorPages(PAGES_OF_100, 2);
          await warmOwners(pagesOf100.plain);
        },
        next: pageOf100('plain'),
        check: pageCheck(false),
        streams: () => [
          {
            name: 'pages',
            connections: 10,
            next: pageOf100('plain'),
            expectStatus: 200,
            // The client without expand: the page, then GET /users/{owner_id} for each of its items, one after another.
            followUps: (text) =>
              ((JSON.parse(text) as { data?: Array<{ owner_id?: unknown }> }).data ?? []).map((item) => ({
                method: 'GET' as const,
                path: `/users/${String(item.owner_id)}`,
                headers: bearer,
              })),
          },
        ],
        note: `${pagesNote}: the N+1 client, the page then each item's owner (GET /users/{id}) one after another on its connection; a counted request is a whole page with its owners`,
      },
      ...mixedScenarios,
      ...writeScenarios,
    ];

    const baseUrls: Record<Target, string> = {
      rest: system.urls.rest,
      'rest-remote': restRemoteUrl,
      gateway: system.urls.gateway,
      direct: directUrl,
      baseline: baselineUrl,
      'baseline-gateway': baselineGatewayUrl,
      hive: hiveUrl,
      'hive-gateway': hiveGatewayUrl,
      'rest-uncached': uncachedSystem?.urls.rest ?? '',
      'rest-nocache': restNocacheUrl,
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
    /**
     * Waits until the system's processes together use less than a quarter of a core for `quietWindows` windows of
     * IDLE_WINDOW_MS in a row; false when the time was up first (the run then starts on a busy system, and its result
     * says so).
     */
    const settle = async (maxMs: number, quietWindows = 1): Promise<boolean> => {
      const until = Date.now() + maxMs;
      const busy = (ticks: CpuTicks) => Object.entries(ticks).filter(([name]) => name !== 'load-generator').reduce((sum, [, t]) => sum + t, 0);
      let quiet = 0;
      while (Date.now() < until) {
        const first = busy(sample());
        await sleep(IDLE_WINDOW_MS);
        quiet = (busy(sample()) - first) / clk < 0.25 * (IDLE_WINDOW_MS / 1000) ? quiet + 1 : 0;
        if (quiet >= quietWindows) return true;
      }
      return false;
    };
    /**
     * How long to wait for idle before a run: before the scenarios that write, up to a minute and for a whole second of
     * quiet, since a write path that leaves work behind keeps FerretDB busy in bursts (seconds to minutes), and a write
     * run started on a busy FerretDB measures that.
     */
    const settleFor = (group?: Group): Promise<boolean> =>
      group === 'writes' || group === 'mixed' ? settle(options.quick ? 15_000 : 60_000, IDLE_WINDOWS) : settle(options.quick ? 2_000 : 10_000);
    /** GraphQL answers errors with a 200: for the GraphQL scenarios a body with `errors` counts as an error too. */
    let graphqlErrors = 0;
    const load = (url: string, next: () => RequestSpec, seconds: number, connections: number, graphqlBodies: boolean) =>
      autocannon({
        url,
        connections,
        duration: seconds,
        timeout: CLIENT_TIMEOUT_MS / 1000,
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
    for (const scenario of selected.filter((s) => s.group === 'reads' || s.group === 'join')) {
      await load(baseUrls[scenario.target], scenario.next, options.warmupSeconds, options.connections, false);
    }
    log('system warmed up (the read paths)');

    const byName = new Map<string, ScenarioResult>();
    /** Skips, settles, prepares, probes and (autocannon scenarios) warms up a scenario; null when it is skipped (its result is recorded). */
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
      await settleFor(scenario.group);
      await scenario.prepare?.();
      const url = baseUrls[scenario.target];
      // One request of each stream (the first checked in full): a peer or a route that does not answer shows here.
      const probes = scenario.streams ? scenario.streams().map((stream) => ({ spec: stream.next(), expect: stream.expectStatus })) : [{ spec: scenario.next(), expect: scenario.expectStatus }];
      let problem: string | null = null;
      for (const [index, { spec, expect }] of probes.entries()) {
        const response = await fetch(`${url}${spec.path}`, { method: spec.method, headers: spec.headers ?? {}, body: spec.body ?? null, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) }).catch(
          (error: unknown) => ({ status: 0, json: () => Promise.resolve(error instanceof Error ? error.message : String(error)) }),
        );
        const body: unknown = await response.json().catch(() => null);
        problem ??=
          response.status !== expect
            ? `probe ${spec.method} ${spec.path} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`
            : index === 0
              ? (scenario.check?.(body) ?? null)
              : null;
      }
      if (problem) log(`${scenario.name}: PROBE FAILED: ${problem}`);
      if (!scenario.streams) await load(url, scenario.next, options.warmupSeconds, scenario.connections ?? options.connections, scenario.graphql === true);
      return { url, problem };
    };

    /** FerretDB's ticks every IDLE_WINDOW_MS from now on, until it was idle for a second (and 2 s passed) or the observation ends. */
    const watchFerretDb = async (): Promise<number[]> => {
      const ticks = [readTicks(pids['ferretdb']) ?? 0];
      const observeMs = options.quick ? AFTER_LOAD_OBSERVE_MS.quick : AFTER_LOAD_OBSERVE_MS.full;
      while (ticks.length * IDLE_WINDOW_MS <= observeMs) {
        await sleep(IDLE_WINDOW_MS);
        ticks.push(readTicks(pids['ferretdb']) ?? ticks[ticks.length - 1]!);
        if (ticks.length > 2_000 / IDLE_WINDOW_MS && ticks.length > IDLE_WINDOWS && idleAfterMs(ticks, clk) !== null) break;
      }
      return ticks;
    };

    /** One measured round of a scenario: its load, the CPU ticks and cache counts of every process around it. */
    const measure = async (scenario: Scenario, url: string, seconds: number, loads: number[]): Promise<Round> => {
      loads.push(loadavg()[0] ?? 0);
      const scrapedBefore = await scrape();
      const before = sample();
      let streams: Record<string, LoadRun>;
      let ferretdbAfter: number[] | undefined;
      if (scenario.streams) {
        const run = await runStreams(url, scenario.streams(), seconds, CLIENT_TIMEOUT_MS);
        streams = run.streams;
        if (scenario.afterLoad) ferretdbAfter = await watchFerretDb();
      } else {
        graphqlErrors = 0;
        const run = await load(url, scenario.next, seconds, scenario.connections ?? options.connections, scenario.graphql === true);
        streams = { main: { requests: run.requests.total, durationSeconds: run.duration, p50: run.latency.p50, p99: run.latency.p99, errors: run.errors + graphqlErrors, non2xx: run.non2xx } };
      }
      const after = sample();
      const cache: Record<string, CacheCount> = addCacheCounts(scrapedBefore, await scrape());
      loads.push(loadavg()[0] ?? 0);
      const ticks: CpuTicks = {};
      for (const [name, start] of Object.entries(before)) {
        const end = after[name];
        if (end !== undefined) ticks[name] = end - start;
      }
      return { streams, ticks, cache, ...(ferretdbAfter ? { ferretdbAfter } : {}) };
    };
    /** Summarises and logs a scenario's rounds; `remarks` (a failed probe, a busy start) go into its note. */
    const record = (scenario: Scenario, rounds: Round[], loads: number[], ...remarks: Array<string | null>) => {
      const note = [scenario.note, rounds.length > 1 ? `median of ${rounds.length} alternating rounds` : undefined, ...remarks];
      const result = summarizeRounds(scenario.name, rounds, clk, {
        own: ownProcesses(scenario.target),
        reader: readerProcess(scenario.target),
        note: note.filter(Boolean).join('; '),
        ...(scenario.main ? { main: scenario.main } : {}),
      });
      const load1m = loads.reduce((sum, l) => sum + l, 0) / Math.max(1, loads.length);
      byName.set(scenario.name, { ...result, load_avg_1m: Math.round(load1m * 100) / 100 });
      const writes = result.streams?.['writes'];
      const extra = [
        writes && result.streams?.['reads'] ? `writes ${writes.rps}/s (errors ${writes.errors}), write share ${((result.write_share ?? 0) * 100).toFixed(1)}%` : '',
        result.hit_rate !== undefined && result.hit_rate !== null ? `hit rate ${(result.hit_rate * 100).toFixed(1)}%` : '',
        result.ferretdb_idle_after_ms !== undefined ? `FerretDB idle ${result.ferretdb_idle_after_ms === null ? 'not within the observation' : `after ${result.ferretdb_idle_after_ms} ms`}` : '',
      ].filter(Boolean);
      log(`${scenario.name}: ${result.rps} req/s, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms, errors ${result.errors}, app CPU ${result.cpu_us_per_req_app} us/req${extra.length ? `; ${extra.join('; ')}` : ''}`);
    };

    for (const group of PHASES) {
      const members = selected.filter((scenario) => scenario.group === group);
      if (group === 'single') {
        for (const scenario of members) {
          const readied = await ready(scenario);
          if (!readied) continue;
          const loads: number[] = [];
          record(scenario, [await measure(scenario, readied.url, options.durationSeconds, loads)], loads, readied.problem && `probe: ${readied.problem}`);
        }
        continue;
      }
      const prepared = new Map<Scenario, { url: string; problem: string | null }>();
      for (const scenario of members) {
        const readied = await ready(scenario);
        if (readied) prepared.set(scenario, readied);
      }
      // Writes are slow on FerretDB v1 (a collection pass each): each round runs the whole duration, not a share of it.
      const seconds = group === 'writes' ? options.durationSeconds : options.durationSeconds / options.rounds;
      const measured = new Map<Scenario, { rounds: Round[]; loads: number[]; busyStarts: number }>([...prepared.keys()].map((s) => [s, { rounds: [], loads: [], busyStarts: 0 }]));
      for (let r = 0; r < options.rounds; r += 1) {
        for (const [scenario, { url }] of prepared) {
          const into = measured.get(scenario)!;
          if (!(await settleFor(group))) into.busyStarts += 1;
          into.rounds.push(await measure(scenario, url, seconds, into.loads));
        }
      }
      for (const [scenario, { rounds, loads, busyStarts }] of measured) {
        const busy = busyStarts ? `${busyStarts} of ${rounds.length} rounds started before the processes were idle (work left by the scenario before)` : null;
        const { problem } = prepared.get(scenario)!;
        record(scenario, rounds, loads, problem && `probe: ${problem}`, busy);
      }
    }
    const results = selected.map((scenario) => byName.get(scenario.name)).filter((r): r is ScenarioResult => r !== undefined);

    const ratios = computeRatios(results);
    const targets = checkTargets(results, ratios);
    const report = {
      generated_at: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? null, node: process.version, load_avg_start: loadAtStart, load_avg_end: loadavg() },
      settings: {
        quick: options.quick,
        only: options.only,
        connections: options.connections,
        mixed_connections: MIXED_CONNECTIONS,
        warmup_s: options.warmupSeconds,
        duration_s: options.durationSeconds,
        rounds: options.rounds,
        seed,
        hot_ids: options.hot,
        env: { ...DEPLOYMENT, ...UNTHROTTLED, ...options.env, SUBGRAPH_SECRET: '(generated per run)', WEBHOOK_SECRETS_KEY: '(generated per run)' },
        uncached_env: UNCACHED_ENV,
        nocache_facade_env: NOCACHE_FACADE_ENV,
        peers: { baseline: peerNote.baseline, hive: peerNote.hive },
      },
      scenarios: results,
      ratio_definitions: RATIOS,
      ratios,
      targets,
      run_seconds: Math.round((Date.now() - started) / 1000),
    };
    const out = options.out ?? join(rootDir, 'bench', 'results', 'latest.json');
    mkdirSync(resolve(out, '..'), { recursive: true });
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`\n${formatTable(results, ratios, targets)}\n\n`);
    log(`CPU is us per request per process ('app us': the scenario's own processes, databases excluded); ferretdb and redis shown apart`);
    log(`wrote ${out} in ${((Date.now() - started) / 1000).toFixed(0)} s; load average now ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } catch (error) {
    await cleanup(true);
    throw error;
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
