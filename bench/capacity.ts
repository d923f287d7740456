/**
 * `npm run bench:capacity`: the capacity run (issue 28, Deliver 4), the load test under the manifests' memory limits.
 * Boots the whole system as production runs it (NODE_ENV=production through the dev stack's `productionMode`, each
 * process with the NODE_OPTIONS, so the `--max-old-space-size`, its Deployment in k8s/base/apps/<app>.yaml sets: read
 * from the manifests, not repeated here) on a fresh, seeded FerretDB and redis-server; drives REST and GraphQL load
 * (reads alone, and a 95/5 read/write mix) at a few concurrencies with the bench's closed-loop generator
 * (bench/load.ts); and samples every process's VmRSS, VmHWM and CPU time from /proc throughout. It prints, per app, the
 * idle RSS, the peak RSS under load, the CPU seconds per 1,000 requests of each phase and so the requests per second
 * one core serves, writes bench/results/capacity-latest.json, and exits 1 when a process's peak RSS (VmHWM) passed its
 * manifest's memory limit, a process died, or no phase got answers. docs/capacity.md turns the numbers into the model.
 *
 *   npm run bench:capacity                                   # c=10 and c=50, 12 s per phase (about 4 minutes)
 *   npm run bench:capacity -- --concurrency=10,50,100 --duration=20
 *   npm run bench:capacity -- --only=rest                    # phases whose name starts so
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import {
  APP_NAMES,
  makeTempDir,
  manifestSizing,
  parsePrometheusText,
  productionMode,
  startFerretDb,
  startRedis,
  startSystem,
  type AppName,
  type ContainerSizing,
  type RunningInfra,
  type RunningSystem,
} from '@platform/dev-stack';
import { OPERATIONS } from '../apps/rest/src/gateway/gateway-client';
import { SEED_PASSWORD, seedDatabase, seedUsername, type SeedSizes } from './bench-seed';
import { addCacheCounts, formatHitRates, type CacheCount, type MetricSample } from './bench-results';
import { runStreams, type RequestSpec, type Stream } from './load';
import { readMemory, readTicks, ticksPerSecond } from './proc-stats';

const { GetUser, UpdateUser } = OPERATIONS;
const log = (message: string) => process.stdout.write(`[capacity] ${message}\n`);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const MIB = 1024 * 1024;
const mib = (bytes: number) => Math.round(bytes / MIB);

/**
 * Smaller than the bench's FULL_SEED: this run measures the processes, not FerretDB v1's scans (docs/performance.md),
 * and seeding 100,000 items would take most of its few minutes.
 */
const SEED: SeedSizes = { users: 2_000, items: 5_000, posts: 2_000 };
/** Reads pick users 1..HOT (the read cache's working set: docs/capacity.md states the hit rate this gives). */
const HOT = 100;
/** Writes PATCH users HOT+1..HOT+WRITTEN, never read by the readers. */
const WRITTEN = 50;
/** The 95/5 mix, split by connections like the bench's mixed scenarios (bench-cli.ts MIXES explains why). */
const WRITE_SHARE = 0.05;
/** Enough that no phase is throttled (the limits are not what is measured). */
const UNTHROTTLED = { RATE_LIMIT_POINTS: '1000000000', LOGIN_RATE_LIMIT_POINTS: '1000000000' };
const SAMPLE_EVERY_MS = 200;
const CLIENT_TIMEOUT_MS = 10_000;
const READY_TIMEOUT_MS = 180_000;

interface Options {
  concurrency: number[];
  durationSeconds: number;
  warmupSeconds: number;
  only: string[] | null;
  out: string;
}

function parseArgs(argv: readonly string[], rootDir: string): Options {
  const options: Options = {
    concurrency: [10, 50],
    durationSeconds: 12,
    warmupSeconds: 2,
    only: null,
    out: join(rootDir, 'bench', 'results', 'capacity-latest.json'),
  };
  for (const arg of argv) {
    const [key, value = ''] = arg.split(/=(.*)/s);
    if (key === '--concurrency') options.concurrency = value.split(',').map(Number);
    else if (key === '--duration') options.durationSeconds = Number(value);
    else if (key === '--warmup') options.warmupSeconds = Number(value);
    else if (key === '--only') options.only = value.split(',').filter(Boolean);
    else if (key === '--out') options.out = resolve(value);
    else
      throw new Error(
        `unknown argument ${arg} (--concurrency=10,50 --duration=12 --warmup=2 --only=rest --out=file)`,
      );
  }
  if (!options.concurrency.every((c) => Number.isInteger(c) && c >= 2))
    throw new Error('--concurrency takes integers >= 2');
  if (!(options.durationSeconds > 0)) throw new Error('--duration takes seconds > 0');
  return options;
}

interface Phase {
  name: string;
  /** Where the load goes: the REST facade or the gateway (GraphQL). */
  target: 'rest' | 'gateway';
  connections: number;
  writeShare: number;
}

interface PhaseResult {
  name: string;
  connections: number;
  seconds: number;
  reads: number;
  writes: number;
  /** Answers with another status than expected, or GraphQL `errors`, or no answer. */
  failed: number;
  rps: number;
  readP50: number;
  readP99: number;
  writeP99: number | null;
  /** CPU seconds per 1,000 answered requests, per process (apps, ferretdb, redis). */
  cpuPer1000: Record<string, number>;
  /** Requests per second one fully busy core of the process serves (1,000 / cpuPer1000); only above 0.01 s. */
  rpsPerCore: Record<string, number>;
  /** Highest VmRSS sampled during the phase, MiB. */
  peakRssMiB: Record<string, number>;
  cacheHitRates: string;
  /** Commands redis-server processed per answered request (INFO stats total_commands_processed, this run's only). */
  redisCommandsPerRequest: number;
  /** V8 heap (nodejs_heap_size_total_bytes) after the phase, MiB: the rest of the RSS is outside the old space. */
  heapTotalMiB: Record<string, number>;
}

interface AppReport {
  memoryLimitMiB: number;
  memoryRequestMiB: number | null;
  heapMiB: number | null;
  cpuRequest: string | null;
  idleRssMiB: number;
  /** Highest VmRSS the sampler saw under load. */
  peakRssMiB: number;
  /** VmHWM at the end: the kernel's high-water mark over the process's whole life, start-up included. */
  hwmMiB: number;
  rssAfterLoadMiB: number;
  withinLimit: boolean;
}

async function main(): Promise<void> {
  const rootDir = resolve(__dirname, '..', '..');
  const options = parseArgs(process.argv.slice(2), rootDir);
  const clk = ticksPerSecond();
  const load = loadavg();
  log(
    `machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load average ${load.map((l) => l.toFixed(2)).join(' ')}`,
  );
  if ((load[0] ?? 0) > cpus().length)
    log(
      'WARNING: the load average is above the core count: other work competes for the CPUs; CPU shares are noisy',
    );

  const sizing = Object.fromEntries(APP_NAMES.map((app) => [app, manifestSizing(rootDir, app)])) as Record<
    AppName,
    ContainerSizing
  >;
  for (const app of APP_NAMES) {
    const s = sizing[app];
    if (s.memoryLimitBytes === undefined || s.nodeOptions === undefined) {
      throw new Error(
        `k8s/base/apps/${app}.yaml sets no memory limit or no NODE_OPTIONS: nothing to hold the process to`,
      );
    }
    log(
      `${app}: limit ${mib(s.memoryLimitBytes)} MiB, request ${s.memoryRequestBytes ? mib(s.memoryRequestBytes) : '-'} MiB, NODE_OPTIONS=${s.nodeOptions}`,
    );
  }

  const tmp = makeTempDir('api-capacity-');
  const infra: RunningInfra[] = [];
  let system: RunningSystem | undefined;
  const cleanup = async () => {
    await system?.stop();
    await Promise.all(infra.map((i) => i.process.stop('SIGTERM', 5_000)));
    tmp.remove();
  };
  process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));

  let failed = false;
  try {
    const ferret = await startFerretDb({
      dataDir: join(tmp.path, 'ferretdb'),
      logFile: join(tmp.path, 'ferretdb.log'),
      log,
    });
    infra.push(ferret);
    const redis = await startRedis({ dataDir: join(tmp.path, 'redis'), log });
    infra.push(redis);
    await seedDatabase(ferret.url, SEED, log);

    system = await startSystem({
      rootDir,
      mongoUrl: ferret.url,
      redisUrl: redis.url,
      jwtSecret: randomBytes(32).toString('hex'),
      freePorts: true,
      logDir: tmp.path,
      readyTimeoutMs: READY_TIMEOUT_MS,
      env: { ...productionMode(randomBytes(32).toString('hex')), DATA_DIR: tmp.path, ...UNTHROTTLED },
      envFor: Object.fromEntries(APP_NAMES.map((app) => [app, { NODE_OPTIONS: sizing[app].nodeOptions! }])),
    });
    const running = system;
    const pids = Object.fromEntries(
      [...running.processes].map(([name, proc]) => [name, proc.child.pid]),
    ) as Record<string, number | undefined>;
    pids['ferretdb'] = ferret.process.child.pid;
    pids['redis'] = redis.process.child.pid;
    // The heap setting reached each process: its environment as the kernel holds it.
    for (const app of APP_NAMES) {
      const environ = readFileSync(`/proc/${pids[app]}/environ`, 'utf8').split('\0');
      if (!environ.includes(`NODE_OPTIONS=${sizing[app].nodeOptions}`))
        throw new Error(`${app} runs without NODE_OPTIONS=${sizing[app].nodeOptions}`);
      if (!environ.includes('NODE_ENV=production'))
        throw new Error(`${app} does not run with NODE_ENV=production`);
    }
    log(
      `system ready (rest ${running.urls.rest}, gateway ${running.urls.gateway}/graphql), every process with its manifest's NODE_OPTIONS and NODE_ENV=production`,
    );

    // The sampler: every process's RSS (highest per phase and overall) while the run goes on.
    const peakInPhase: Record<string, number> = {};
    const peakUnderLoad: Record<string, number> = {};
    let underLoad = false;
    const died = new Set<string>();
    const sampleOnce = () => {
      for (const [name, pid] of Object.entries(pids)) {
        const memory = readMemory(pid);
        if (!memory) {
          if (APP_NAMES.includes(name as AppName)) died.add(name);
          continue;
        }
        peakInPhase[name] = Math.max(peakInPhase[name] ?? 0, memory.rss);
        if (underLoad) peakUnderLoad[name] = Math.max(peakUnderLoad[name] ?? 0, memory.rss);
      }
    };
    const sampler = setInterval(sampleOnce, SAMPLE_EVERY_MS);
    const redisClient = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redisClient.connect();
    const redisCommands = async () =>
      Number(/total_commands_processed:(\d+)/.exec(await redisClient.info('stats'))?.[1] ?? NaN);
    const ticks = () =>
      Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, readTicks(pid) ?? 0]));
    const scrape = async (): Promise<Record<string, MetricSample[]>> => {
      const out: Record<string, MetricSample[]> = {};
      await Promise.all(
        Object.entries(running.metricsUrls).map(async ([name, url]) => {
          const response = await fetch(url).catch(() => undefined);
          if (response?.ok) out[name] = parsePrometheusText(await response.text());
        }),
      );
      return out;
    };

    // Idle: the processes as started, before any request but the login, median of 10 samples over 2 s.
    await sleep(3_000);
    const idleSamples: Record<string, number[]> = {};
    for (let i = 0; i < 10; i += 1) {
      for (const [name, pid] of Object.entries(pids))
        (idleSamples[name] ??= []).push(readMemory(pid)?.rss ?? 0);
      await sleep(200);
    }
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const idleRss = Object.fromEntries(
      Object.entries(idleSamples).map(([name, values]) => [name, median(values)]),
    );

    const login = await fetch(`${running.urls.rest}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: seedUsername(1), password: SEED_PASSWORD }),
    });
    if (login.status !== 200)
      throw new Error(`login of the seeded admin failed: ${login.status} ${await login.text()}`);
    const bearer = {
      authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}`,
    };

    const pick = (from: number, count: number) => from + Math.floor(Math.random() * count);
    const runId = randomBytes(3).toString('hex');
    let written = 0;
    const requests: Record<
      Phase['target'],
      { read: () => RequestSpec; write: () => RequestSpec; graphql: boolean }
    > = {
      rest: {
        read: () => ({ method: 'GET', path: `/users/${pick(1, HOT)}`, headers: bearer }),
        write: () => ({
          method: 'PATCH',
          path: `/users/${pick(HOT + 1, WRITTEN)}`,
          headers: { ...bearer, 'content-type': 'application/json' },
          body: JSON.stringify({ full_name: `Capacity ${runId} ${(written += 1)}` }),
        }),
        graphql: false,
      },
      gateway: {
        read: () => graphqlRequest(bearer, GetUser, { id: String(pick(1, HOT)), includeInactive: false }),
        write: () =>
          graphqlRequest(bearer, UpdateUser, {
            id: String(pick(HOT + 1, WRITTEN)),
            input: { fullName: `Capacity ${runId} ${(written += 1)}` },
          }),
        graphql: true,
      },
    };
    const streamsOf = (phase: Phase): Stream[] => {
      const spec = requests[phase.target];
      const writers = Math.round(phase.connections * phase.writeShare);
      return [
        {
          name: 'reads',
          connections: phase.connections - writers,
          next: spec.read,
          expectStatus: 200,
          graphqlBodies: spec.graphql,
        },
        ...(writers > 0
          ? [
              {
                name: 'writes',
                connections: writers,
                next: spec.write,
                expectStatus: 200,
                graphqlBodies: spec.graphql,
              },
            ]
          : []),
      ];
    };
    const baseUrl = (phase: Phase) => (phase.target === 'rest' ? running.urls.rest : running.urls.gateway);
    // Every request shape once: a wrong status or a GraphQL error stops the run before it measures failures.
    for (const target of ['rest', 'gateway'] as const) {
      for (const next of [requests[target].read, requests[target].write]) {
        const spec = next();
        const path = spec.path;
        const response = await fetch(
          `${target === 'rest' ? running.urls.rest : running.urls.gateway}${path}`,
          { method: spec.method, headers: spec.headers ?? {}, body: spec.body ?? null },
        );
        const text = await response.text();
        if (response.status !== 200 || (target === 'gateway' && text.includes('"errors"'))) {
          throw new Error(`probe ${target} ${spec.method} ${path}: ${response.status} ${text.slice(0, 300)}`);
        }
      }
    }

    const phases: Phase[] = (['rest', 'gateway'] as const)
      .flatMap((target) =>
        [0, WRITE_SHARE].flatMap((writeShare) =>
          options.concurrency.map((connections) => ({
            name: `${target === 'rest' ? 'rest' : 'graphql'}.${writeShare === 0 ? 'reads' : 'mix95_5'}.c${connections}`,
            target,
            connections,
            writeShare,
          })),
        ),
      )
      .filter((phase) => !options.only || options.only.some((prefix) => phase.name.startsWith(prefix)));

    const results: PhaseResult[] = [];
    underLoad = true;
    for (const phase of phases) {
      const streams = streamsOf(phase);
      if (options.warmupSeconds > 0)
        await runStreams(baseUrl(phase), streams, options.warmupSeconds, CLIENT_TIMEOUT_MS);
      for (const name of Object.keys(peakInPhase)) delete peakInPhase[name];
      const cacheBefore = await scrape();
      const commandsBefore = await redisCommands();
      const before = ticks();
      const run = await runStreams(baseUrl(phase), streams, options.durationSeconds, CLIENT_TIMEOUT_MS);
      const after = ticks();
      // Minus the INFO call itself.
      const commands = (await redisCommands()) - commandsBefore - 1;
      const scraped = await scrape();
      const cache: Record<string, CacheCount> = addCacheCounts(cacheBefore, scraped);
      sampleOnce();
      const reads = run.streams['reads']!;
      const writes = run.streams['writes'];
      const answered = reads.requests + (writes?.requests ?? 0);
      const cpuPer1000: Record<string, number> = {};
      const rpsPerCore: Record<string, number> = {};
      for (const name of Object.keys(pids)) {
        const seconds = ((after[name] ?? 0) - (before[name] ?? 0)) / clk;
        cpuPer1000[name] = answered > 0 ? round((seconds / answered) * 1000, 3) : 0;
        if (cpuPer1000[name]! >= 0.01) rpsPerCore[name] = Math.round(1000 / cpuPer1000[name]!);
      }
      const result: PhaseResult = {
        name: phase.name,
        connections: phase.connections,
        seconds: reads.durationSeconds,
        reads: reads.requests,
        writes: writes?.requests ?? 0,
        failed: reads.errors + reads.non2xx + (writes ? writes.errors + writes.non2xx : 0),
        rps: Math.round(answered / reads.durationSeconds),
        readP50: round(reads.p50, 1),
        readP99: round(reads.p99, 1),
        writeP99: writes ? round(writes.p99, 1) : null,
        cpuPer1000,
        rpsPerCore,
        peakRssMiB: Object.fromEntries(
          Object.entries(peakInPhase).map(([name, bytes]) => [name, mib(bytes)]),
        ),
        cacheHitRates: formatHitRates(cache),
        redisCommandsPerRequest: answered > 0 ? round(commands / answered, 2) : 0,
        heapTotalMiB: Object.fromEntries(
          Object.entries(scraped).map(([name, samples]) => [
            name,
            mib(samples.find((m) => m.name === 'nodejs_heap_size_total_bytes')?.value ?? 0),
          ]),
        ),
      };
      results.push(result);
      log(
        `${phase.name}: ${result.rps} req/s (${result.reads} reads, ${result.writes} writes, ${result.failed} failed), read p50 ${result.readP50} ms p99 ${result.readP99} ms` +
          `${result.writeP99 === null ? '' : `, write p99 ${result.writeP99} ms`}; read cache ${result.cacheHitRates}; ${result.redisCommandsPerRequest} redis commands per request`,
      );
      log(
        `  cpu s/1000 req: ${Object.entries(cpuPer1000)
          .filter(([, v]) => v > 0)
          .map(([n, v]) => `${n} ${v}`)
          .join(', ')}`,
      );
      log(
        `  peak RSS MiB: ${Object.entries(result.peakRssMiB)
          .map(([n, v]) => `${n} ${v}`)
          .join(', ')}`,
      );
      log(
        `  V8 heap MiB: ${Object.entries(result.heapTotalMiB)
          .map(([n, v]) => `${n} ${v}`)
          .join(', ')}`,
      );
    }
    underLoad = false;
    redisClient.disconnect();
    await sleep(3_000);
    clearInterval(sampler);

    const apps = {} as Record<AppName, AppReport>;
    for (const app of APP_NAMES) {
      const memory = readMemory(pids[app]);
      const s = sizing[app];
      const hwm = memory?.hwm ?? peakUnderLoad[app] ?? 0;
      apps[app] = {
        memoryLimitMiB: mib(s.memoryLimitBytes!),
        memoryRequestMiB: s.memoryRequestBytes === undefined ? null : mib(s.memoryRequestBytes),
        heapMiB: s.heapMiB ?? null,
        cpuRequest: s.cpuRequest ?? null,
        idleRssMiB: mib(idleRss[app] ?? 0),
        peakRssMiB: mib(peakUnderLoad[app] ?? 0),
        hwmMiB: mib(hwm),
        rssAfterLoadMiB: mib(memory?.rss ?? 0),
        withinLimit: !died.has(app) && hwm <= s.memoryLimitBytes!,
      };
    }

    process.stdout.write('\napp         limit  heap  idle RSS  peak RSS  VmHWM  after  ok\n');
    for (const app of APP_NAMES) {
      const a = apps[app];
      process.stdout.write(
        `${app.padEnd(11)} ${String(a.memoryLimitMiB).padStart(5)} ${String(a.heapMiB ?? '-').padStart(5)} ${String(a.idleRssMiB).padStart(9)} ${String(a.peakRssMiB).padStart(9)} ${String(a.hwmMiB).padStart(6)} ${String(a.rssAfterLoadMiB).padStart(6)}  ${a.withinLimit ? 'yes' : 'NO'}\n`,
      );
    }
    process.stdout.write(
      '\nphase                 req/s  failed  requests/s per core (rest gateway users ferretdb redis)\n',
    );
    for (const r of results) {
      const core = (name: string) => String(r.rpsPerCore[name] ?? '-').padStart(7);
      process.stdout.write(
        `${r.name.padEnd(21)} ${String(r.rps).padStart(6)} ${String(r.failed).padStart(7)}  ${['rest', 'gateway', 'users', 'ferretdb', 'redis'].map(core).join(' ')}\n`,
      );
    }

    mkdirSync(join(options.out, '..'), { recursive: true });
    writeFileSync(
      options.out,
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: {
            cpus: cpus().length,
            model: cpus()[0]?.model ?? null,
            loadAverageAtStart: load,
            node: process.version,
          },
          seed: SEED,
          hotUsers: HOT,
          writeShare: WRITE_SHARE,
          durationSeconds: options.durationSeconds,
          apps,
          idleRssMiB: Object.fromEntries(Object.entries(idleRss).map(([n, v]) => [n, mib(v)])),
          phases: results,
        },
        null,
        2,
      )}\n`,
    );
    log(`results: ${options.out}`);

    for (const app of died)
      log(`FAIL: ${app} exited during the run (an out-of-memory crash ends a process so): see its log`);
    for (const app of APP_NAMES.filter((a) => !died.has(a) && !apps[a].withinLimit)) {
      log(
        `FAIL: ${app} reached ${apps[app].hwmMiB} MiB RSS (VmHWM), above its manifest's memory limit of ${apps[app].memoryLimitMiB} MiB`,
      );
    }
    const silent = results.filter((r) => r.reads === 0);
    for (const r of silent) log(`FAIL: ${r.name} got no answer`);
    failed = died.size > 0 || APP_NAMES.some((a) => !apps[a].withinLimit) || silent.length > 0;
    if (!failed)
      log(
        `every process stayed within its manifest's memory limit (peak VmHWM / limit: ${APP_NAMES.map((a) => `${a} ${apps[a].hwmMiB}/${apps[a].memoryLimitMiB}`).join(', ')})`,
      );
  } finally {
    await cleanup();
  }
  process.exit(failed ? 1 : 0);
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** A GraphQL POST of one of the facade's own documents to the gateway. */
function graphqlRequest(
  headers: Record<string, string>,
  operation: { name: string; document: string },
  variables: Record<string, unknown>,
): RequestSpec {
  return {
    method: 'POST',
    path: '/graphql',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ operationName: operation.name, query: operation.document, variables }),
  };
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[capacity] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
