/**
 * Pure arithmetic of the benchmark: CPU per request from /proc tick counts, the summary of one scenario, the
 * ratios rest/gateway and rest/direct, the target checks and the printed table. No I/O here (unit-tested).
 */

/** Processes whose CPU counts toward the application's cost (the database and redis are reported apart). */
export const APP_PROCESSES = ['rest', 'rest-embedded', 'gateway', 'users', 'items', 'auth', 'posts'] as const;
/** The processes a REST read of one user goes through (GATEWAY_MODE=remote, the default). */
export const USERS_GET_PATH = ['rest', 'gateway', 'users'] as const;
/** ...and with GATEWAY_MODE=embedded: the facade runs the gateway's executor itself. */
export const EMBEDDED_USERS_GET_PATH = ['rest-embedded', 'users'] as const;

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
  /** Sum over the application processes (APP_PROCESSES and the direct floor); databases excluded. */
  cpu_us_per_req_app: number;
  skipped?: string;
  note?: string;
  /** 1-minute load average during the run: above the core count, other work competed for the CPUs. */
  load_avg_1m?: number;
  /** Read-cache look-ups during the measured runs (gateway and embedded facade, read_cache_lookups_total), by result. */
  read_cache?: { hit: number; miss: number; stale: number; bypass: number; hit_rate: number | null };
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

export function appCpu(cpu: Record<string, number>): number {
  return round(
    Object.entries(cpu)
      .filter(([name]) => (APP_PROCESSES as readonly string[]).includes(name) || name === 'direct')
      .reduce((sum, [, value]) => sum + value, 0),
    1,
  );
}

export function summarizeRun(
  name: string,
  run: LoadRun,
  cpu: Record<string, number>,
  options: { expectNon2xx?: boolean; note?: string } = {},
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
    cpu_us_per_req_app: appCpu(cpu),
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
  /** rest.users.get.embedded (GATEWAY_MODE=embedded) req/s over gateway.users.get req/s. */
  rest_embedded_over_gateway: number | null;
}

const ran = (results: readonly ScenarioResult[], name: string) => results.find((r) => r.name === name && !r.skipped && r.rps > 0);

export function computeRatios(results: readonly ScenarioResult[]): Ratios {
  const rest = ran(results, 'rest.users.get');
  const gateway = ran(results, 'gateway.users.get');
  const direct = ran(results, 'direct.users.get');
  const embedded = ran(results, 'rest.users.get.embedded');
  return {
    rest_over_gateway: rest && gateway ? round(rest.rps / gateway.rps, 3) : null,
    rest_over_direct: rest && direct ? round(rest.rps / direct.rps, 3) : null,
    rest_embedded_over_gateway: embedded && gateway ? round(embedded.rps / gateway.rps, 3) : null,
  };
}

export interface TargetCheck {
  target: string;
  value: string;
  met: boolean | null;
}

const SINGLE_RECORD_READS = ['rest.users.get', 'rest.users.get.embedded', 'gateway.users.get', 'rest.items.get'];

/** The targets (the facade's for both GATEWAY_MODEs); `met: null` when a needed scenario did not run. */
export function checkTargets(results: readonly ScenarioResult[], ratios: Ratios): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const ratioCheck = (scenario: string, ratio: number | null) =>
    checks.push({ target: `${scenario} >= 0.9x gateway.users.get req/s`, value: ratio === null ? 'n/a' : `${ratio}x`, met: ratio === null ? null : ratio >= 0.9 });
  const cpuCheck = (scenario: string, path: readonly string[]) => {
    const r = ran(results, scenario);
    const pathCpu = r ? round(path.reduce((sum, p) => sum + (r.cpu_us_per_req[p] ?? 0), 0), 1) : null;
    checks.push({ target: `${scenario} CPU (${path.join('+')}) <= 250 us`, value: pathCpu === null ? 'n/a' : `${pathCpu} us`, met: pathCpu === null ? null : pathCpu <= 250 });
  };
  ratioCheck('rest.users.get', ratios.rest_over_gateway);
  cpuCheck('rest.users.get', USERS_GET_PATH);
  ratioCheck('rest.users.get.embedded', ratios.rest_embedded_over_gateway);
  cpuCheck('rest.users.get.embedded', EMBEDDED_USERS_GET_PATH);
  for (const name of SINGLE_RECORD_READS) {
    const r = ran(results, name);
    checks.push({ target: `${name} p99 <= 50 ms`, value: r ? `${r.p99_ms} ms` : 'n/a', met: r ? r.p99_ms <= 50 : null });
  }
  const withErrors = results.filter((r) => !r.skipped && r.errors > 0).map((r) => `${r.name}=${r.errors}`);
  checks.push({ target: '0 errors in every scenario', value: withErrors.length ? withErrors.join(', ') : '0', met: withErrors.length === 0 });
  return checks;
}

const pad = (text: string, width: number, right = false) => (right ? text.padStart(width) : text.padEnd(width));

/** A fixed-width table: one row per scenario, CPU per process, then the ratios and the targets. */
export function formatTable(results: readonly ScenarioResult[], ratios: Ratios, targets: readonly TargetCheck[]): string {
  const processes = [...new Set(results.flatMap((r) => Object.keys(r.cpu_us_per_req)))];
  const header = [pad('scenario', 28), pad('req/s', 9, true), pad('p50 ms', 8, true), pad('p99 ms', 8, true), pad('errors', 7, true), pad('app us', 8, true), ...processes.map((p) => pad(p, 9, true))].join(' ');
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
        ...processes.map((p) => pad(r.cpu_us_per_req[p] === undefined ? '-' : r.cpu_us_per_req[p]!.toFixed(0), 9, true)),
      ].join(' '),
    );
  }
  lines.push(
    '',
    `rest/gateway (users.get req/s): ${ratios.rest_over_gateway ?? 'n/a'}`,
    `rest/direct  (users.get req/s): ${ratios.rest_over_direct ?? 'n/a'}`,
    `rest embedded/gateway (users.get req/s): ${ratios.rest_embedded_over_gateway ?? 'n/a'}`,
    '',
  );
  for (const t of targets) lines.push(`${t.met === null ? '[ -- ]' : t.met ? '[ ok ]' : '[MISS]'} ${t.target}: ${t.value}`);
  return lines.join('\n');
}
