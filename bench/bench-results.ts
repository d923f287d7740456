/**
 * Pure arithmetic of the benchmark: CPU per request from /proc tick counts, the summary of one scenario from its
 * alternating rounds (medians), the ratios between scenarios of one run, the acceptance checks, cache hit rates from
 * metric counters, the database's idle time after a load, and the printed table. No I/O here (unit-tested).
 */

/** Processes whose CPU counts toward the application's cost (the database and redis are reported apart). */
export const APP_PROCESSES = ['rest', 'rest-remote', 'gateway', 'users', 'items', 'auth', 'posts'] as const;
/** Our four subgraphs: behind our gateway, and behind Hive Gateway (the peer runs over the same subgraph processes). */
export const SUBGRAPH_PROCESSES = ['users', 'items', 'auth', 'posts'] as const;
/** The docs-default baseline's processes (bench/baseline): express facade -> @apollo/gateway -> @apollo/subgraphs. */
export const BASELINE_PROCESSES = ['baseline-facade', 'baseline-gateway', 'baseline-users', 'baseline-items'] as const;
/** The Hive peer's own processes: the same express facade in front of Hive Gateway (which calls our subgraphs). */
export const HIVE_PROCESSES = ['hive-facade', 'hive-gateway'] as const;
/** The second system (every cache and deduplication off) runs the same processes, named with this prefix. */
export const UNCACHED_PREFIX = 'uncached:';
/** The processes a REST read of one user goes through (GATEWAY_MODE=embedded, the default: the facade runs the gateway's executor itself). */
export const USERS_GET_PATH = ['rest', 'users'] as const;
/** ...and with GATEWAY_MODE=remote: the facade posts to the gateway process. */
export const REMOTE_USERS_GET_PATH = ['rest-remote', 'gateway', 'users'] as const;

const includes = (list: readonly string[], name: string) => list.includes(name);

/** Is this process's CPU the application's (ours, the uncached copy of ours, the floor server or a peer)? */
export const isAppProcess = (name: string): boolean => {
  const base = name.startsWith(UNCACHED_PREFIX) ? name.slice(UNCACHED_PREFIX.length) : name;
  return includes(APP_PROCESSES, base) || includes(BASELINE_PROCESSES, base) || includes(HIVE_PROCESSES, base) || base === 'direct';
};

/** Where a scenario's requests go: our systems, the floor server, or a peer (its facade or its gateway). */
export type Target = 'rest' | 'rest-remote' | 'gateway' | 'direct' | 'baseline' | 'baseline-gateway' | 'hive' | 'hive-gateway' | 'rest-uncached' | 'rest-nocache';

export interface StreamSummary {
  /** Answers per second: the median of the rounds. */
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  requests: number;
  /** Answers by status over all rounds (`error`: no answer); only for the streams runStreams drives. */
  statuses?: Record<string, number>;
  /** HTTP requests per counted answer (an N+1 client's operation is 1 + N of them); only for runStreams' streams. */
  round_trips_per_request?: number;
}

export interface ScenarioResult {
  name: string;
  /** Answers per second of the scenario's main stream (reads in a mixed scenario): the median of its rounds. */
  rps: number;
  p50_ms: number;
  p99_ms: number;
  /** Errors of every stream over every round (connection errors, timeouts, unexpected statuses, GraphQL errors). */
  errors: number;
  /** Answers of every stream over every round. */
  requests: number;
  duration_s: number;
  /** CPU time spent per answered request (every stream), per process, in microseconds. */
  cpu_us_per_req: Record<string, number>;
  /** Sum over the scenario's own application processes (ownProcesses); databases and other systems excluded. */
  cpu_us_per_req_app: number;
  /** Each round's answers per second of the main stream (the median of these is `rps`). */
  rounds?: number[];
  /** The streams of a scenario that runs several at once (a mixed scenario's `reads` and `writes`). */
  streams?: Record<string, StreamSummary>;
  /** Share of the answers that were writes (mixed scenarios). */
  write_share?: number;
  /** Hit rate of the read cache of the process that serves the scenario's reads; null: that process has none (or did not look up). */
  hit_rate?: number | null;
  /** Write scenarios: ms from the last answer until FerretDB was idle (and stayed so for a second); null: not within the observation. */
  ferretdb_idle_after_ms?: number | null;
  /** Write scenarios: FerretDB's CPU (ms) in the 2 s after the last answer, the worst round. */
  ferretdb_cpu_ms_after?: number;
  skipped?: string;
  note?: string;
  /** 1-minute load average during the run: above the core count, other work competed for the CPUs. */
  load_avg_1m?: number;
  /** Cache hits and misses per process counted during the measured runs (`read_cache_*` counters); absent: none exist. */
  cache?: Record<string, CacheCount>;
}

/** What one load run of one stream reported (autocannon's fields or runStreams', reduced). */
export interface LoadRun {
  requests: number;
  durationSeconds: number;
  p50: number;
  p99: number;
  /** Connection errors and timeouts (and GraphQL errors in a 200). */
  errors: number;
  non2xx: number;
  statuses?: Record<string, number>;
  /** HTTP requests sent (runStreams): more than `requests` when one counted operation takes several (an N+1 client). */
  roundTrips?: number;
}

/** CPU ticks (utime + stime) per process, read before or after a run. */
export type CpuTicks = Record<string, number>;

/** One measured round of a scenario: each stream's run, each process's CPU ticks and cache counts spent in it. */
export interface Round {
  streams: Record<string, LoadRun>;
  ticks: CpuTicks;
  cache: Record<string, CacheCount>;
  /** Write scenarios: FerretDB's tick counts every `IDLE_WINDOW_MS` from the last answer on (idleAfterMs). */
  ferretdbAfter?: number[];
}

const round = (value: number, places: number): number => {
  const f = 10 ** places;
  return Math.round(value * f) / f;
};

/** The median of the values (the mean of the middle two for an even count); 0 for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The p-th percentile (nearest rank) of ascending values; 0 for none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** Microseconds of CPU per request for each process present in both samples. */
export function cpuPerRequest(before: CpuTicks, after: CpuTicks, requests: number, ticksPerSecond: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, start] of Object.entries(before)) {
    const end = after[name];
    if (end === undefined) continue;
    const micros = ((end - start) / ticksPerSecond) * 1_000_000;
    out[name] = requests > 0 ? round(micros / requests, 1) : 0;
  }
  return out;
}

/**
 * Whose CPU a scenario's "app" figure sums: the application processes of the system its requests go to, so the other
 * systems idling beside it add nothing. The Hive peer's path is its facade, Hive Gateway and our subgraphs.
 */
export function ownProcesses(target: string): (name: string) => boolean {
  if (target === 'baseline' || target === 'baseline-gateway') return (name) => includes(BASELINE_PROCESSES, name);
  if (target === 'hive' || target === 'hive-gateway') return (name) => includes(HIVE_PROCESSES, name) || includes(SUBGRAPH_PROCESSES, name);
  if (target === 'direct') return (name) => name === 'direct';
  if (target === 'rest-uncached') return (name) => name.startsWith(UNCACHED_PREFIX) && isAppProcess(name);
  // The uncached system's second facade (NOCACHE_FACADE_ENV) and the subgraphs behind it.
  if (target === 'rest-nocache')
    return (name) =>
      name === `${UNCACHED_PREFIX}rest-nocache` ||
      (name.startsWith(UNCACHED_PREFIX) && includes(SUBGRAPH_PROCESSES, name.slice(UNCACHED_PREFIX.length)));
  return (name) => includes(APP_PROCESSES, name);
}

/** The process whose read cache serves a target's reads (its hit rate is the scenario's); none for the peers and the floor. */
export function readerProcess(target: string): string | null {
  if (target === 'rest') return 'rest';
  if (target === 'rest-remote' || target === 'gateway') return 'gateway';
  if (target === 'rest-uncached') return `${UNCACHED_PREFIX}rest`;
  if (target === 'rest-nocache') return `${UNCACHED_PREFIX}rest-nocache`;
  return null;
}

export function appCpu(cpu: Record<string, number>, own: (name: string) => boolean = isAppProcess): number {
  return round(
    Object.entries(cpu)
      .filter(([name]) => own(name))
      .reduce((sum, [, value]) => sum + value, 0),
    1,
  );
}

/** One sample of a Prometheus scrape (the fields of @platform/dev-stack's parsePrometheusText). */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface CacheCount {
  hits: number;
  misses: number;
}

/** Counters whose names start with one of these are cache counters (hcache's read cache; extend for other caches). */
export const CACHE_METRIC_PREFIXES = ['read_cache_'] as const;

/**
 * A cache counter sample is a hit or a miss by its name or a label value (`read_cache_hits_total`, or
 * `read_cache_lookups_total{result="miss"}`); anything else (sizes, evictions, invalidations, bypasses) is neither.
 */
function cacheKind(sample: MetricSample): 'hit' | 'miss' | null {
  if (!CACHE_METRIC_PREFIXES.some((prefix) => sample.name.startsWith(prefix)) || !sample.name.endsWith('_total')) return null;
  const words = [sample.name, ...Object.values(sample.labels)].join(' ');
  if (/\bmiss|_miss/.test(words)) return 'miss';
  if (/\bhit|_hit/.test(words)) return 'hit';
  return null;
}

/**
 * Hits and misses each process counted between two scrapes (process name -> its samples), added to `into`; a process
 * without cache counters is left out, so an empty result means "no cache counters" (printed "n/a").
 */
export function addCacheCounts(before: Record<string, MetricSample[]>, after: Record<string, MetricSample[]>, into: Record<string, CacheCount> = {}): Record<string, CacheCount> {
  const total = (samples: MetricSample[] | undefined, kind: 'hit' | 'miss') =>
    (samples ?? []).filter((s) => cacheKind(s) === kind).reduce((sum, s) => sum + s.value, 0);
  for (const [name, samples] of Object.entries(after)) {
    if (!samples.some((s) => cacheKind(s) !== null)) continue;
    const count = (into[name] ??= { hits: 0, misses: 0 });
    count.hits += total(samples, 'hit') - total(before[name], 'hit');
    count.misses += total(samples, 'miss') - total(before[name], 'miss');
  }
  return into;
}

/** Hits over look-ups; null without any look-up. */
export function hitRate(count: CacheCount | undefined): number | null {
  if (!count || count.hits + count.misses === 0) return null;
  return round(count.hits / (count.hits + count.misses), 4);
}

/** "rest 97.5% (3900/4000), gateway n/a" for a scenario's cache counts; "n/a" without any cache counter. */
export function formatHitRates(cache: Record<string, CacheCount> | undefined): string {
  const entries = Object.entries(cache ?? {}).filter(([, c]) => c.hits + c.misses > 0);
  if (entries.length === 0) return 'n/a';
  return entries.map(([name, c]) => `${name} ${((100 * c.hits) / (c.hits + c.misses)).toFixed(1)}% (${c.hits}/${c.hits + c.misses})`).join(', ');
}

/** The database's idle test after a write load: its CPU sampled in windows of this length... */
export const IDLE_WINDOW_MS = 250;
/** ...idle when it used less than this share of one core in a window... */
export const IDLE_CPU_SHARE = 0.1;
/** ...and idle "from then on" once this many windows in a row are (one second). */
export const IDLE_WINDOWS = 4;

/**
 * Milliseconds from the last answer until FerretDB went idle and stayed idle for a second: `ticks` are its tick counts
 * read every IDLE_WINDOW_MS from the last answer on (ticks[0] at the answer). The start of the first run of
 * IDLE_WINDOWS idle windows; null when none was observed.
 */
export function idleAfterMs(ticks: readonly number[], ticksPerSecond: number): number | null {
  const limit = IDLE_CPU_SHARE * (IDLE_WINDOW_MS / 1000) * ticksPerSecond;
  let streak = 0;
  for (let i = 1; i < ticks.length; i += 1) {
    streak = ticks[i]! - ticks[i - 1]! < limit ? streak + 1 : 0;
    if (streak === IDLE_WINDOWS) return (i - IDLE_WINDOWS) * IDLE_WINDOW_MS;
  }
  return null;
}

/** FerretDB's CPU in ms over the first `ms` of the after-load samples (ticks every IDLE_WINDOW_MS). */
export function cpuMsAfter(ticks: readonly number[], ticksPerSecond: number, ms: number): number {
  if (ticks.length < 2) return 0;
  const last = Math.min(ticks.length - 1, Math.round(ms / IDLE_WINDOW_MS));
  return round(((ticks[last]! - ticks[0]!) / ticksPerSecond) * 1000, 0);
}

export function summarizeRun(
  name: string,
  run: LoadRun,
  cpu: Record<string, number>,
  options: { expectNon2xx?: boolean; note?: string; own?: (name: string) => boolean } = {},
): ScenarioResult {
  const result: ScenarioResult = {
    name,
    rps: run.durationSeconds > 0 ? round(run.requests / run.durationSeconds, 1) : 0,
    p50_ms: round(run.p50, 2),
    p99_ms: round(run.p99, 2),
    errors: run.errors + (options.expectNon2xx ? 0 : run.non2xx),
    requests: run.requests,
    duration_s: round(run.durationSeconds, 2),
    cpu_us_per_req: cpu,
    cpu_us_per_req_app: appCpu(cpu, options.own),
  };
  if (options.note) result.note = options.note;
  return result;
}

const rateOf = (run: LoadRun) => (run.durationSeconds > 0 ? run.requests / run.durationSeconds : 0);

/** One stream over its rounds: rate, p50 and p99 the medians of the rounds', errors and answers the sums. */
function summarizeStream(runs: readonly LoadRun[]): StreamSummary {
  const statuses: Record<string, number> = {};
  const roundTrips = runs.reduce((sum, r) => sum + (r.roundTrips ?? 0), 0);
  const requests = runs.reduce((sum, r) => sum + r.requests, 0);
  for (const run of runs) for (const [status, count] of Object.entries(run.statuses ?? {})) statuses[status] = (statuses[status] ?? 0) + count;
  return {
    rps: round(median(runs.map(rateOf)), 1),
    p50_ms: round(median(runs.map((r) => r.p50)), 2),
    p99_ms: round(median(runs.map((r) => r.p99)), 2),
    errors: runs.reduce((sum, r) => sum + r.errors + r.non2xx, 0),
    requests: runs.reduce((sum, r) => sum + r.requests, 0),
    ...(Object.keys(statuses).length ? { statuses } : {}),
    ...(roundTrips > 0 && requests > 0 ? { round_trips_per_request: round(roundTrips / requests, 2) } : {}),
  };
}

/**
 * A scenario from its alternating rounds: the main stream's rate, p50 and p99 are the medians of the rounds' (so one
 * slow spell of the machine moves none of them), errors and answers add up over every stream and round, CPU per
 * request is every round's CPU over every round's answers, the hit rate is the reader process's hits over its
 * look-ups in all rounds, and the database's idle time after a write load is the worst round's.
 */
export function summarizeRounds(
  name: string,
  rounds: readonly Round[],
  ticksPerSecond: number,
  options: { main?: string; own?: (name: string) => boolean; reader?: string | null; note?: string } = {},
): ScenarioResult {
  const streamNames = [...new Set(rounds.flatMap((r) => Object.keys(r.streams)))];
  const mainName = options.main ?? streamNames[0] ?? 'main';
  const streams = Object.fromEntries(streamNames.map((stream) => [stream, summarizeStream(rounds.flatMap((r) => (r.streams[stream] ? [r.streams[stream]] : [])))]));
  const main = streams[mainName] ?? summarizeStream([]);
  const requests = Object.values(streams).reduce((sum, s) => sum + s.requests, 0);
  const ticks: CpuTicks = {};
  const cache: Record<string, CacheCount> = {};
  for (const r of rounds) {
    for (const [process, t] of Object.entries(r.ticks)) ticks[process] = (ticks[process] ?? 0) + t;
    for (const [process, c] of Object.entries(r.cache)) {
      const into = (cache[process] ??= { hits: 0, misses: 0 });
      into.hits += c.hits;
      into.misses += c.misses;
    }
  }
  const zero = Object.fromEntries(Object.keys(ticks).map((process) => [process, 0]));
  const cpu = cpuPerRequest(zero, ticks, requests, ticksPerSecond);
  const result: ScenarioResult = {
    name,
    rps: main.rps,
    p50_ms: main.p50_ms,
    p99_ms: main.p99_ms,
    errors: Object.values(streams).reduce((sum, s) => sum + s.errors, 0),
    requests,
    duration_s: round(rounds.reduce((sum, r) => sum + Math.max(0, ...Object.values(r.streams).map((s) => s.durationSeconds)), 0), 2),
    cpu_us_per_req: cpu,
    cpu_us_per_req_app: appCpu(cpu, options.own),
    rounds: rounds.map((r) => round(r.streams[mainName] ? rateOf(r.streams[mainName]) : 0, 1)),
  };
  if (streamNames.length > 1) {
    result.streams = streams;
    const writes = streams['writes']?.requests ?? 0;
    if (streams['writes']) result.write_share = requests > 0 ? round(writes / requests, 4) : 0;
  } else if (main.statuses) {
    result.streams = streams;
  }
  if (options.reader !== undefined) result.hit_rate = options.reader === null ? null : hitRate(cache[options.reader]);
  const after = rounds.map((r) => r.ferretdbAfter).filter((t): t is number[] => t !== undefined);
  if (after.length) {
    const idle = after.map((t) => idleAfterMs(t, ticksPerSecond));
    result.ferretdb_idle_after_ms = idle.includes(null) ? null : Math.max(...(idle as number[]));
    result.ferretdb_cpu_ms_after = Math.max(...after.map((t) => cpuMsAfter(t, ticksPerSecond, 2_000)));
  }
  if (Object.keys(cache).length) result.cache = cache;
  if (options.note) result.note = options.note;
  return result;
}

export function skippedScenario(name: string, reason: string): ScenarioResult {
  return { name, rps: 0, p50_ms: 0, p99_ms: 0, errors: 0, requests: 0, duration_s: 0, cpu_us_per_req: {}, cpu_us_per_req_app: 0, skipped: reason };
}

/** What a ratio divides: answers per second (the default), app CPU per request, or p99. */
type Measure = 'rps' | 'cpu' | 'p99';

/** Every ratio the run computes: `a` over `b`, both scenarios of this run. */
export const RATIOS = {
  rest_over_baseline: { a: 'rest.users.get', b: 'baseline.users.get' },
  rest_over_hive_facade: { a: 'rest.users.get', b: 'hive.users.get' },
  gateway_over_hive_gateway: { a: 'gateway.users.get', b: 'hive-gateway.users.get' },
  uncached_over_hive_facade: { a: 'rest.users.get.uncached', b: 'hive.users.get' },
  nocache_over_hive_facade: { a: 'rest.users.get.nocache', b: 'hive.users.get' },
  uncached_over_baseline: { a: 'rest.users.get.uncached', b: 'baseline.users.get' },
  hive_facade_over_baseline: { a: 'hive.users.get', b: 'baseline.users.get' },
  mixed_95_5_reads_over_baseline: { a: 'rest.users.mixed_95_5', b: 'baseline.users.mixed_95_5' },
  mixed_95_5_reads_over_hive_facade: { a: 'rest.users.mixed_95_5', b: 'hive.users.mixed_95_5' },
  mixed_80_20_reads_over_baseline: { a: 'rest.users.mixed_80_20', b: 'baseline.users.mixed_80_20' },
  mixed_80_20_reads_over_hive_facade: { a: 'rest.users.mixed_80_20', b: 'hive.users.mixed_80_20' },
  users_writes_c1_over_floor: { a: 'rest.users.patch.c1', b: 'direct.users.patch.c1' },
  users_writes_c16_over_floor: { a: 'rest.users.patch.c16', b: 'direct.users.patch.c16' },
  items_writes_c1_over_floor: { a: 'rest.items.patch.c1', b: 'direct.items.patch.c1' },
  items_writes_c16_over_floor: { a: 'rest.items.patch.c16', b: 'direct.items.patch.c16' },
  join_over_baseline_gateway: { a: 'gateway.items.get_with_owner', b: 'baseline-gateway.items.get_with_owner' },
  join_over_hive_gateway: { a: 'gateway.items.get_with_owner', b: 'hive-gateway.items.get_with_owner' },
  rest_over_gateway: { a: 'rest.users.get', b: 'gateway.users.get' },
  rest_over_direct: { a: 'rest.users.get', b: 'direct.users.get' },
  rest_remote_over_gateway: { a: 'rest.users.get.remote', b: 'gateway.users.get' },
  rest_remote_over_baseline: { a: 'rest.users.get.remote', b: 'baseline.users.get' },
  rest_cpu_over_floor: { a: 'rest.users.get', b: 'direct.users.get', measure: 'cpu' },
  rest_p99_over_floor: { a: 'rest.users.get', b: 'direct.users.get', measure: 'p99' },
  uncached_cpu_over_floor: { a: 'rest.users.get.uncached', b: 'direct.users.get', measure: 'cpu' },
  expand_over_n_plus_1: { a: 'rest.items.list.expand', b: 'rest.items.list.n_plus_1' },
} as const satisfies Record<string, { a: string; b: string; measure?: Measure }>;

export type RatioName = keyof typeof RATIOS;
export type Ratios = Record<RatioName, number | null>;

const ran = (results: readonly ScenarioResult[], name: string) => results.find((r) => r.name === name && !r.skipped && r.requests > 0);

const measureOf = (r: ScenarioResult, measure: Measure) => (measure === 'cpu' ? r.cpu_us_per_req_app : measure === 'p99' ? r.p99_ms : r.rps);

/** Every ratio of RATIOS whose two scenarios ran (and the divisor is not 0); null otherwise. */
export function computeRatios(results: readonly ScenarioResult[]): Ratios {
  const out = {} as Ratios;
  for (const [name, spec] of Object.entries(RATIOS) as Array<[RatioName, { a: string; b: string; measure?: Measure }]>) {
    const a = ran(results, spec.a);
    const b = ran(results, spec.b);
    const measure = spec.measure ?? 'rps';
    out[name] = a && b && measureOf(b, measure) > 0 ? round(measureOf(a, measure) / measureOf(b, measure), 3) : null;
  }
  return out;
}

export interface TargetCheck {
  /** Which issue set the target (issue 29's acceptance first). */
  issue: number;
  target: string;
  value: string;
  met: boolean | null;
}

const SINGLE_RECORD_READS = ['rest.users.get', 'rest.users.get.remote', 'gateway.users.get', 'rest.items.get'];
/** Our write scenarios (issue 29's "writes" targets); each has its floor `direct.*` twin. */
export const WRITE_SCENARIOS = ['rest.users.patch.c1', 'rest.users.patch.c16', 'rest.items.patch.c1', 'rest.items.patch.c16'] as const;

const times = (ratio: number | null) => (ratio === null ? 'n/a' : `${ratio}x`);

/** "rest.users.get req/s >= 2.5x baseline.users.get": a ratio's target, named with both its scenarios. */
function ratioTarget(name: RatioName, bound: number, atMost: boolean): string {
  const spec: { a: string; b: string; measure?: Measure } = RATIOS[name];
  const what = spec.measure === 'cpu' ? ' app CPU' : spec.measure === 'p99' ? ' p99' : ' req/s';
  return `${spec.a}${what} ${atMost ? '<=' : '>='} ${bound}x ${spec.b}`;
}

/**
 * Issue 29's acceptance (one run, same data: every ratio in-run, each scenario the median of its rounds), then issue
 * 19's and issue 9's earlier targets; `met: null` when a needed scenario did not run.
 */
export function checkTargets(results: readonly ScenarioResult[], ratios: Ratios): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const ratio = (issue: number, name: RatioName, bound: number, atMost = false) => {
    const value = ratios[name];
    checks.push({ issue, target: ratioTarget(name, bound, atMost), value: times(value), met: value === null ? null : atMost ? value <= bound : value >= bound });
  };
  ratio(29, 'mixed_95_5_reads_over_baseline', 3);
  ratio(29, 'mixed_95_5_reads_over_hive_facade', 1.5);
  const mixed = ran(results, 'rest.users.mixed_95_5');
  const hot = mixed?.hit_rate ?? null;
  checks.push({ issue: 29, target: 'rest.users.mixed_95_5 read cache hit rate on the untouched hot set >= 90%', value: hot === null ? 'n/a' : `${round(hot * 100, 1)}%`, met: hot === null ? null : hot >= 0.9 });
  ratio(29, 'users_writes_c1_over_floor', 0.5);
  ratio(29, 'users_writes_c16_over_floor', 0.5);
  ratio(29, 'items_writes_c1_over_floor', 0.5);
  ratio(29, 'items_writes_c16_over_floor', 0.5);
  for (const name of WRITE_SCENARIOS.filter((n) => n.endsWith('.c16'))) {
    const r = ran(results, name);
    checks.push({ issue: 29, target: `${name} 0 errors`, value: r ? String(r.errors) : 'n/a', met: r ? r.errors === 0 : null });
  }
  for (const name of WRITE_SCENARIOS) {
    const r = ran(results, name);
    const idle = r?.ferretdb_idle_after_ms;
    checks.push({
      issue: 29,
      target: `${name}: FerretDB idle within 1 s after the last answer`,
      value: !r || idle === undefined ? 'n/a' : idle === null ? 'not idle within the observation' : `${idle} ms`,
      met: !r || idle === undefined ? null : idle !== null && idle <= 1_000,
    });
  }
  // Without the read cache, each side with its in-flight deduplication at the default (Hive Gateway's is on).
  ratio(29, 'nocache_over_hive_facade', 1.0);
  ratio(29, 'rest_over_baseline', 2.5);
  ratio(29, 'rest_over_hive_facade', 1.5);
  ratio(29, 'gateway_over_hive_gateway', 1.2);

  ratio(19, 'rest_cpu_over_floor', 2, true);
  ratio(19, 'rest_p99_over_floor', 1.5, true);
  ratio(19, 'uncached_over_baseline', 1.5);

  // Issue 27: a page of 100 items with their owners, one expanded request against the N+1 client (pages per second).
  ratio(27, 'expand_over_n_plus_1', 3);
  const tripsOf = (name: string) => {
    const r = ran(results, name);
    return r?.streams?.['pages']?.round_trips_per_request ?? null;
  };
  const expandTrips = tripsOf('rest.items.list.expand');
  const plusOneTrips = tripsOf('rest.items.list.n_plus_1');
  const fewer = expandTrips && plusOneTrips ? round(plusOneTrips / expandTrips, 1) : null;
  checks.push({
    issue: 27,
    target: 'rest.items.list.expand client round trips per page <= 1/10 of rest.items.list.n_plus_1',
    value: fewer === null ? 'n/a' : `${expandTrips} vs ${plusOneTrips} (${fewer}x fewer)`,
    met: fewer === null ? null : fewer >= 10,
  });

  ratio(9, 'rest_over_gateway', 0.9);

  const cpuCheck = (scenario: string, path: readonly string[]) => {
    const r = ran(results, scenario);
    const pathCpu = r ? round(path.reduce((sum, p) => sum + (r.cpu_us_per_req[p] ?? 0), 0), 1) : null;
    checks.push({ issue: 9, target: `${scenario} CPU (${path.join('+')}) <= 250 us`, value: pathCpu === null ? 'n/a' : `${pathCpu} us`, met: pathCpu === null ? null : pathCpu <= 250 });
  };
  cpuCheck('rest.users.get', USERS_GET_PATH);
  ratio(9, 'rest_remote_over_gateway', 0.9);
  cpuCheck('rest.users.get.remote', REMOTE_USERS_GET_PATH);
  for (const name of SINGLE_RECORD_READS) {
    const r = ran(results, name);
    checks.push({ issue: 9, target: `${name} p99 <= 50 ms`, value: r ? `${r.p99_ms} ms` : 'n/a', met: r ? r.p99_ms <= 50 : null });
  }
  // A scenario that got no answer at all (everything still in flight when its time was up) failed too.
  const withErrors = results.filter((r) => !r.skipped && (r.errors > 0 || r.requests === 0)).map((r) => `${r.name}=${r.requests === 0 ? 'no answer' : r.errors}`);
  checks.push({ issue: 9, target: '0 errors in every scenario', value: withErrors.length ? withErrors.join(', ') : '0', met: withErrors.length === 0 });
  return checks;
}

/**
 * The scenario filter (`--only`): a name matches a pattern when equal, or when the pattern has `*` wildcards
 * (`mixed*`, `*.patch.*`, `hive*`) that stand for any characters; no patterns: everything matches.
 */
export function matchesOnly(name: string, patterns: readonly string[] | null): boolean {
  if (!patterns || patterns.length === 0) return true;
  return patterns.some((pattern) => {
    if (!pattern.includes('*')) return pattern === name;
    const regex = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    return regex.test(name);
  });
}

const pad = (text: string, width: number, right = false) => (right ? text.padStart(width) : text.padEnd(width));

/**
 * A process gets a column when it spent at least this share of the app CPU of some row with COLUMN_ANSWERS answers or
 * more (the rest idled; a write scenario's few answers spread every process's idle ticks thick); the databases always.
 */
const COLUMN_SHARE = 0.1;
const COLUMN_ANSWERS = 200;
const DATABASES = ['ferretdb', 'redis'];
const percent = (share: number | null | undefined) => (share === null || share === undefined ? 'n/a' : `${(share * 100).toFixed(1)}%`);

/**
 * A fixed-width table: one row per scenario (a mixed scenario's row is its reads; its writes follow on a line of their
 * own), CPU per process (those idle in every scenario left out; the app column and latest.json have them all), then
 * the write scenarios' database idle times, the ratios, the hit rates and the targets.
 */
export function formatTable(results: readonly ScenarioResult[], ratios: Ratios, targets: readonly TargetCheck[]): string {
  const processes = [...new Set(results.flatMap((r) => Object.keys(r.cpu_us_per_req)))].filter(
    (p) => DATABASES.includes(p) || results.some((r) => r.requests >= COLUMN_ANSWERS && (r.cpu_us_per_req[p] ?? 0) >= Math.max(1, COLUMN_SHARE * r.cpu_us_per_req_app)),
  );
  const width = 40;
  const header = [pad('scenario', width), pad('req/s', 9, true), pad('p50 ms', 8, true), pad('p99 ms', 8, true), pad('errors', 7, true), pad('app us', 8, true), ...processes.map((p) => pad(p, Math.max(9, p.length), true))].join(' ');
  const lines = [header, '-'.repeat(header.length)];
  for (const r of results) {
    if (r.skipped) {
      lines.push(`${pad(r.name, width)} ${r.skipped}`);
      continue;
    }
    lines.push(
      [
        pad(r.name, width),
        pad(r.rps.toFixed(r.rps < 10 ? 1 : 0), 9, true),
        pad(r.p50_ms.toFixed(1), 8, true),
        pad(r.p99_ms.toFixed(1), 8, true),
        pad(String(r.errors), 7, true),
        pad(r.cpu_us_per_req_app.toFixed(0), 8, true),
        ...processes.map((p) => pad(r.cpu_us_per_req[p] === undefined ? '-' : r.cpu_us_per_req[p]!.toFixed(0), Math.max(9, p.length), true)),
      ].join(' '),
    );
    const writes = r.streams?.['writes'];
    if (writes && r.streams?.['reads']) {
      lines.push(
        [pad('  + writes', width), pad(writes.rps.toFixed(1), 9, true), pad(writes.p50_ms.toFixed(1), 8, true), pad(writes.p99_ms.toFixed(1), 8, true), pad(String(writes.errors), 7, true)].join(' ') +
          `   (share ${percent(r.write_share)}, hit rate ${percent(r.hit_rate)})`,
      );
    }
  }
  lines.push('');
  const written = results.filter((r) => !r.skipped && r.ferretdb_idle_after_ms !== undefined);
  for (const r of written) {
    const statuses = Object.entries(r.streams?.['main']?.statuses ?? {})
      .map(([status, count]) => `${status} x${count}`)
      .join(', ');
    lines.push(
      `${r.name}: ${r.rps} writes/s (rounds ${(r.rounds ?? []).join(' / ')}), answers ${statuses || 'none'}; FerretDB idle ${r.ferretdb_idle_after_ms === null ? 'not within the observation' : `after ${r.ferretdb_idle_after_ms} ms`}, ${r.ferretdb_cpu_ms_after} ms CPU in the 2 s after`,
    );
  }
  if (written.length) lines.push('');
  for (const [name, value] of Object.entries(ratios)) {
    const spec: { a: string; b: string; measure?: Measure } = RATIOS[name as RatioName];
    lines.push(`${pad(name, 36)} ${pad(times(value), 9, true)}   ${spec.a} / ${spec.b}${spec.measure ? ` (${spec.measure})` : ''}`);
  }
  lines.push('');
  const reads = results.filter((r) => !r.skipped && (r.name.includes('users.get') || r.name.includes('mixed') || r.name.includes('with_owner')) && !r.name.includes('full_range'));
  for (const r of reads) lines.push(`cache hit rate ${r.name}: ${formatHitRates(r.cache)}`);
  if (reads.length) lines.push('');
  for (const t of targets) lines.push(`${t.met === null ? '[ -- ]' : t.met ? '[ ok ]' : '[MISS]'} issue ${t.issue}: ${t.target}: ${t.value}`);
  return lines.join('\n');
}
