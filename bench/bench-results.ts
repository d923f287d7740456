/**
 * Pure arithmetic of the benchmark: CPU per request from /proc tick counts, the summary of one scenario, the
 * ratios (against the gateway, the floor, the docs-default baseline and the issue's reference peers), the target
 * checks, cache hit rates from metric counters and the printed table. No I/O here (unit-tested).
 */

/** Processes whose CPU counts toward the application's cost (the database and redis are reported apart). */
export const APP_PROCESSES = ['rest', 'rest-remote', 'gateway', 'users', 'items', 'auth', 'posts'] as const;
/** The docs-default baseline's processes (bench/baseline): express facade -> @apollo/gateway -> @apollo/subgraph. */
export const BASELINE_PROCESSES = ['baseline-facade', 'baseline-gateway', 'baseline-users'] as const;
/** The second system (every cache and deduplication off) runs the same processes, named with this prefix. */
export const UNCACHED_PREFIX = 'uncached:';
/** The processes a REST read of one user goes through (GATEWAY_MODE=embedded, the default: the facade runs the gateway's executor itself). */
export const USERS_GET_PATH = ['rest', 'users'] as const;
/** ...and with GATEWAY_MODE=remote: the facade posts to the gateway process. */
export const REMOTE_USERS_GET_PATH = ['rest-remote', 'gateway', 'users'] as const;

/** Is this process's CPU the application's (ours, the uncached copy of ours, the floor server or the baseline)? */
export const isAppProcess = (name: string): boolean => {
  const base = name.startsWith(UNCACHED_PREFIX) ? name.slice(UNCACHED_PREFIX.length) : name;
  return (APP_PROCESSES as readonly string[]).includes(base) || (BASELINE_PROCESSES as readonly string[]).includes(base) || base === 'direct';
};

/**
 * Peers the bench does not run: issue 19's table, measured side by side on this machine class (2 vCPU, Node 24, the
 * same FerretDB v1 with 10,000 users, ids 1..10, autocannon c=50), two runs each. A ratio against them is a reference,
 * not a measurement of this run; a target counts as met only against the faster of the two runs.
 */
export const REFERENCES = {
  hive_facade: { label: 'express facade -> Hive Gateway -> subgraph', rps: [1_312, 1_586] },
  hive_gateway: { label: 'Hive Gateway (GraphQL)', rps: [1_317, 1_916] },
} as const;

export interface ScenarioResult {
  name: string;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  requests: number;
  duration_s: number;
  /** CPU time spent per completed request, per process, in microseconds. */
  cpu_us_per_req: Record<string, number>;
  /** Sum over the scenario's own application processes (ownProcesses); databases and other systems excluded. */
  cpu_us_per_req_app: number;
  skipped?: string;
  note?: string;
  /** 1-minute load average during the run: above the core count, other work competed for the CPUs. */
  load_avg_1m?: number;
  /** Cache hits and misses per process counted during the measured runs (`read_cache_*` counters); absent: none exist. */
  cache?: Record<string, CacheCount>;
}

/** What one load run reported (autocannon's fields, reduced). */
export interface LoadRun {
  requests: number;
  durationSeconds: number;
  p50: number;
  p99: number;
  /** Connection errors and timeouts. */
  errors: number;
  non2xx: number;
}

/**
 * Several runs of one scenario as one: requests, time and errors add up; p50 is the request-weighted mean of the
 * runs' p50s, p99 the worst run's p99 (percentiles do not merge exactly; this errs on the slow side).
 */
export function mergeRuns(runs: readonly LoadRun[]): LoadRun {
  const requests = runs.reduce((sum, r) => sum + r.requests, 0);
  return {
    requests,
    durationSeconds: runs.reduce((sum, r) => sum + r.durationSeconds, 0),
    p50: requests > 0 ? runs.reduce((sum, r) => sum + r.p50 * r.requests, 0) / requests : 0,
    p99: runs.reduce((worst, r) => Math.max(worst, r.p99), 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
  };
}

/** CPU ticks (utime + stime) per process, read before or after a run. */
export type CpuTicks = Record<string, number>;

const round = (value: number, places: number): number => {
  const f = 10 ** places;
  return Math.round(value * f) / f;
};

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
 * Whose CPU a scenario's "app" figure sums: the application processes of the system its requests go to (ours, the
 * uncached copy, the floor server or the baseline), so the other systems idling beside it add nothing.
 */
export function ownProcesses(target: string): (name: string) => boolean {
  if (target === 'baseline') return (name) => (BASELINE_PROCESSES as readonly string[]).includes(name);
  if (target === 'direct') return (name) => name === 'direct';
  if (target === 'rest-uncached') return (name) => name.startsWith(UNCACHED_PREFIX) && isAppProcess(name);
  return (name) => (APP_PROCESSES as readonly string[]).includes(name);
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
 * `read_cache_lookups_total{result="miss"}`); anything else (sizes, evictions, invalidations) is neither.
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

/** "rest 97.5% (3900/4000), gateway n/a" for a scenario's cache counts; "n/a" without any cache counter. */
export function formatHitRates(cache: Record<string, CacheCount> | undefined): string {
  const entries = Object.entries(cache ?? {}).filter(([, c]) => c.hits + c.misses > 0);
  if (entries.length === 0) return 'n/a';
  return entries.map(([name, c]) => `${name} ${((100 * c.hits) / (c.hits + c.misses)).toFixed(1)}% (${c.hits}/${c.hits + c.misses})`).join(', ');
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

export function skippedScenario(name: string, reason: string): ScenarioResult {
  return { name, rps: 0, p50_ms: 0, p99_ms: 0, errors: 0, requests: 0, duration_s: 0, cpu_us_per_req: {}, cpu_us_per_req_app: 0, skipped: reason };
}

export interface Ratios {
  /** rest.users.get req/s over gateway.users.get req/s. */
  rest_over_gateway: number | null;
  /** rest.users.get req/s over direct.users.get req/s. */
  rest_over_direct: number | null;
  /** rest.users.get.remote (GATEWAY_MODE=remote) req/s over gateway.users.get req/s. */
  rest_remote_over_gateway: number | null;
  /** rest.users.get req/s over baseline.users.get (the docs-default chain, measured in the same run). */
  rest_over_baseline: number | null;
  /** rest.users.get.remote req/s over baseline.users.get. */
  rest_remote_over_baseline: number | null;
  /** rest.users.get req/s over each of the reference runs of "facade -> Hive Gateway" (not measured here). */
  rest_over_hive_facade_ref: number[] | null;
  /** App CPU per rest.users.get over the floor's (direct.users.get). */
  rest_cpu_over_floor: number | null;
  /** p99 of rest.users.get over the floor's. */
  rest_p99_over_floor: number | null;
  /** gateway.users.get req/s over each reference run of Hive Gateway (not measured here). */
  gateway_over_hive_gateway_ref: number[] | null;
  /** The same REST read with every cache and deduplication off (rest.users.get.uncached) over the baseline... */
  uncached_over_baseline: number | null;
  /** ...and over the "facade -> Hive Gateway" reference runs. */
  uncached_over_hive_facade_ref: number[] | null;
  /** App CPU per uncached REST read over the floor's. */
  uncached_cpu_over_floor: number | null;
}

const ran = (results: readonly ScenarioResult[], name: string) => results.find((r) => r.name === name && !r.skipped && r.rps > 0);

export function computeRatios(results: readonly ScenarioResult[]): Ratios {
  const rest = ran(results, 'rest.users.get');
  const gateway = ran(results, 'gateway.users.get');
  const direct = ran(results, 'direct.users.get');
  const remote = ran(results, 'rest.users.get.remote');
  const baseline = ran(results, 'baseline.users.get');
  const uncached = ran(results, 'rest.users.get.uncached');
  const over = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b > 0 ? round(a / b, 3) : null);
  const overReference = (r: ScenarioResult | undefined, reference: readonly number[]) => (r ? reference.map((rps) => round(r.rps / rps, 3)) : null);
  return {
    rest_over_gateway: over(rest?.rps, gateway?.rps),
    rest_over_direct: over(rest?.rps, direct?.rps),
    rest_remote_over_gateway: over(remote?.rps, gateway?.rps),
    rest_over_baseline: over(rest?.rps, baseline?.rps),
    rest_remote_over_baseline: over(remote?.rps, baseline?.rps),
    rest_over_hive_facade_ref: overReference(rest, REFERENCES.hive_facade.rps),
    rest_cpu_over_floor: over(rest?.cpu_us_per_req_app, direct?.cpu_us_per_req_app),
    rest_p99_over_floor: over(rest?.p99_ms, direct?.p99_ms),
    gateway_over_hive_gateway_ref: overReference(gateway, REFERENCES.hive_gateway.rps),
    uncached_over_baseline: over(uncached?.rps, baseline?.rps),
    uncached_over_hive_facade_ref: overReference(uncached, REFERENCES.hive_facade.rps),
    uncached_cpu_over_floor: over(uncached?.cpu_us_per_req_app, direct?.cpu_us_per_req_app),
  };
}

export interface TargetCheck {
  target: string;
  value: string;
  met: boolean | null;
}

const SINGLE_RECORD_READS = ['rest.users.get', 'rest.users.get.remote', 'gateway.users.get', 'rest.items.get'];

/** "1.01x / 0.84x" for the ratios against the reference runs. */
const referenceValue = (ratios: readonly number[]) => ratios.map((r) => `${r}x`).join(' / ');

/** Issue 19's targets: ratios in one run against the floor and the baseline, and against the reference peers. */
function issue19Targets(ratios: Ratios): TargetCheck[] {
  const atLeast = (target: string, ratio: number | null, min: number): TargetCheck => ({
    target,
    value: ratio === null ? 'n/a' : `${ratio}x`,
    met: ratio === null ? null : ratio >= min,
  });
  const atMost = (target: string, ratio: number | null, max: number): TargetCheck => ({
    target,
    value: ratio === null ? 'n/a' : `${ratio}x`,
    met: ratio === null ? null : ratio <= max,
  });
  // Against a reference, met only when the ratio holds against the faster of its runs.
  const reference = (target: string, ratio: number[] | null, min: number, rps: readonly number[]): TargetCheck => ({
    target: `${target} (reference ${rps.map((r) => r.toLocaleString('en-US')).join(' / ')} req/s from issue 19, not measured)`,
    value: ratio === null ? 'n/a' : referenceValue(ratio),
    met: ratio === null ? null : Math.min(...ratio) >= min,
  });
  return [
    atLeast('rest.users.get >= 2.5x baseline.users.get req/s', ratios.rest_over_baseline, 2.5),
    reference('rest.users.get >= 1.5x facade -> Hive Gateway req/s', ratios.rest_over_hive_facade_ref, 1.5, REFERENCES.hive_facade.rps),
    atMost('rest.users.get app CPU <= 2x direct.users.get', ratios.rest_cpu_over_floor, 2),
    atMost('rest.users.get p99 <= 1.5x direct.users.get p99', ratios.rest_p99_over_floor, 1.5),
    reference('gateway.users.get >= 1.2x Hive Gateway req/s', ratios.gateway_over_hive_gateway_ref, 1.2, REFERENCES.hive_gateway.rps),
    atLeast('rest.users.get.uncached >= 1.5x baseline.users.get req/s', ratios.uncached_over_baseline, 1.5),
    reference('rest.users.get.uncached >= 1.0x facade -> Hive Gateway req/s', ratios.uncached_over_hive_facade_ref, 1.0, REFERENCES.hive_facade.rps),
  ];
}

/**
 * Every target, issue 19's first, then the earlier ones (the facade's for both GATEWAY_MODEs); `met: null` when a
 * needed scenario did not run.
 */
export function checkTargets(results: readonly ScenarioResult[], ratios: Ratios): TargetCheck[] {
  const checks: TargetCheck[] = issue19Targets(ratios);
  const ratioCheck = (scenario: string, ratio: number | null) =>
    checks.push({ target: `${scenario} >= 0.9x gateway.users.get req/s`, value: ratio === null ? 'n/a' : `${ratio}x`, met: ratio === null ? null : ratio >= 0.9 });
  const cpuCheck = (scenario: string, path: readonly string[]) => {
    const r = ran(results, scenario);
    const pathCpu = r ? round(path.reduce((sum, p) => sum + (r.cpu_us_per_req[p] ?? 0), 0), 1) : null;
    checks.push({ target: `${scenario} CPU (${path.join('+')}) <= 250 us`, value: pathCpu === null ? 'n/a' : `${pathCpu} us`, met: pathCpu === null ? null : pathCpu <= 250 });
  };
  ratioCheck('rest.users.get', ratios.rest_over_gateway);
  cpuCheck('rest.users.get', USERS_GET_PATH);
  ratioCheck('rest.users.get.remote', ratios.rest_remote_over_gateway);
  cpuCheck('rest.users.get.remote', REMOTE_USERS_GET_PATH);
  for (const name of SINGLE_RECORD_READS) {
    const r = ran(results, name);
    checks.push({ target: `${name} p99 <= 50 ms`, value: r ? `${r.p99_ms} ms` : 'n/a', met: r ? r.p99_ms <= 50 : null });
  }
  const withErrors = results.filter((r) => !r.skipped && r.errors > 0).map((r) => `${r.name}=${r.errors}`);
  checks.push({ target: '0 errors in every scenario', value: withErrors.length ? withErrors.join(', ') : '0', met: withErrors.length === 0 });
  return checks;
}

const pad = (text: string, width: number, right = false) => (right ? text.padStart(width) : text.padEnd(width));
const ratioText = (ratio: number | number[] | null) => (ratio === null ? 'n/a' : Array.isArray(ratio) ? referenceValue(ratio) : `${ratio}x`);

/** A process gets a column when it spent at least this share of some row's app CPU (the rest idled); the databases always. */
const COLUMN_SHARE = 0.1;
const DATABASES = ['ferretdb', 'redis'];

/**
 * A fixed-width table: one row per scenario, CPU per process (those idle in every scenario left out; the app column
 * and latest.json have them all), then the
 * ratios, the hit rates of the users.get scenarios and the targets.
 */
export function formatTable(results: readonly ScenarioResult[], ratios: Ratios, targets: readonly TargetCheck[]): string {
  const processes = [...new Set(results.flatMap((r) => Object.keys(r.cpu_us_per_req)))].filter(
    (p) => DATABASES.includes(p) || results.some((r) => (r.cpu_us_per_req[p] ?? 0) >= Math.max(1, COLUMN_SHARE * r.cpu_us_per_req_app)),
  );
  const header = [pad('scenario', 28), pad('req/s', 9, true), pad('p50 ms', 8, true), pad('p99 ms', 8, true), pad('errors', 7, true), pad('app us', 8, true), ...processes.map((p) => pad(p, Math.max(9, p.length), true))].join(' ');
  const lines = [header, '-'.repeat(header.length)];
  for (const r of results) {
    if (r.skipped) {
      lines.push(`${pad(r.name, 28)} ${r.skipped}`);
      continue;
    }
    lines.push(
      [
        pad(r.name, 28),
        pad(r.rps.toFixed(0), 9, true),
        pad(r.p50_ms.toFixed(1), 8, true),
        pad(r.p99_ms.toFixed(1), 8, true),
        pad(String(r.errors), 7, true),
        pad(r.cpu_us_per_req_app.toFixed(0), 8, true),
        ...processes.map((p) => pad(r.cpu_us_per_req[p] === undefined ? '-' : r.cpu_us_per_req[p]!.toFixed(0), Math.max(9, p.length), true)),
      ].join(' '),
    );
  }
  lines.push(
    '',
    `rest/baseline (users.get req/s, docs-default chain measured in this run): ${ratioText(ratios.rest_over_baseline)}`,
    `rest remote/baseline (users.get req/s): ${ratioText(ratios.rest_remote_over_baseline)}`,
    `rest/facade->Hive Gateway (reference ${REFERENCES.hive_facade.rps.join(' / ')} req/s, not measured): ${ratioText(ratios.rest_over_hive_facade_ref)}`,
    `rest app CPU/floor: ${ratioText(ratios.rest_cpu_over_floor)}; rest p99/floor: ${ratioText(ratios.rest_p99_over_floor)}`,
    `gateway/Hive Gateway (reference ${REFERENCES.hive_gateway.rps.join(' / ')} req/s, not measured): ${ratioText(ratios.gateway_over_hive_gateway_ref)}`,
    `uncached rest/baseline: ${ratioText(ratios.uncached_over_baseline)}; uncached rest/facade->Hive Gateway (reference): ${ratioText(ratios.uncached_over_hive_facade_ref)}; uncached app CPU/floor: ${ratioText(ratios.uncached_cpu_over_floor)}`,
    `rest/gateway (users.get req/s): ${ratios.rest_over_gateway ?? 'n/a'}`,
    `rest/direct  (users.get req/s): ${ratios.rest_over_direct ?? 'n/a'}`,
    `rest remote/gateway (users.get req/s): ${ratios.rest_remote_over_gateway ?? 'n/a'}`,
    '',
  );
  const reads = results.filter((r) => !r.skipped && r.name.includes('users.get') && !r.name.includes('full_range'));
  for (const r of reads) lines.push(`cache hit rate ${r.name}: ${formatHitRates(r.cache)}`);
  if (reads.length) lines.push('');
  for (const t of targets) lines.push(`${t.met === null ? '[ -- ]' : t.met ? '[ ok ]' : '[MISS]'} ${t.target}: ${t.value}`);
  return lines.join('\n');
}
