import {
  addCacheCounts,
  appCpu,
  checkTargets,
  computeRatios,
  cpuMsAfter,
  cpuPerRequest,
  formatHitRates,
  formatTable,
  hitRate,
  idleAfterMs,
  matchesOnly,
  median,
  ownProcesses,
  percentile,
  readerProcess,
  skippedScenario,
  summarizeRounds,
  summarizeRun,
  type LoadRun,
  type MetricSample,
  type Round,
  type ScenarioResult,
} from './bench-results';

const scenario = (name: string, rps: number, extra: Partial<ScenarioResult> = {}): ScenarioResult => ({
  ...summarizeRun(name, { requests: rps * 10, durationSeconds: 10, p50: 5, p99: 20, errors: 0, non2xx: 0 }, {}),
  ...extra,
});
const run = (requests: number, durationSeconds: number, extra: Partial<LoadRun> = {}): LoadRun => ({ requests, durationSeconds, p50: 5, p99: 20, errors: 0, non2xx: 0, ...extra });
const find = (targets: ReturnType<typeof checkTargets>, prefix: string) => targets.find((t) => t.target.startsWith(prefix));

describe('bench results', () => {
  it('when ticks advance during a run, then CPU per request is the tick delta in microseconds over the requests', () => {
    const cpu = cpuPerRequest({ rest: 1_000, gateway: 2_000, gone: 5 }, { rest: 1_050, gateway: 2_100 }, 10_000, 100);
    // 50 ticks at 100 Hz = 0.5 s = 500,000 us over 10,000 requests.
    expect(cpu).toEqual({ rest: 50, gateway: 100 });
  });

  it('when no request completed, then CPU per request is 0 rather than infinite', () => {
    expect(cpuPerRequest({ rest: 1 }, { rest: 9 }, 0, 100)).toEqual({ rest: 0 });
  });

  it('when summing application CPU, then the database, redis and the load generator are left out, the peers counted', () => {
    expect(appCpu({ rest: 100, gateway: 80, users: 40.5, ferretdb: 900, redis: 10, 'load-generator': 70 })).toBe(220.5);
    expect(appCpu({ 'hive-facade': 10, 'hive-gateway': 20, 'baseline-items': 5, ferretdb: 900 })).toBe(35);
  });

  it('when a run had non-2xx answers, then they count as errors unless the scenario expects them', () => {
    const counted = summarizeRun('rest.users.get', run(1_000, 4, { p50: 1.234, p99: 9.876, errors: 2, non2xx: 3 }), { rest: 10 });
    expect(counted).toMatchObject({ rps: 250, p50_ms: 1.23, p99_ms: 9.88, errors: 5, requests: 1_000, cpu_us_per_req_app: 10 });
    expect(summarizeRun('x', run(1_000, 4, { errors: 2, non2xx: 3 }), {}, { expectNon2xx: true }).errors).toBe(2);
  });

  it('when taking medians and percentiles, then odd counts give the middle, even the mean of the middle two, none 0', () => {
    expect(median([30, 10, 20])).toBe(20);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBe(0);
    const sorted = Array.from({ length: 200 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(100);
    expect(percentile(sorted, 99)).toBe(198);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBe(0);
  });

  it('when a scenario ran three alternating rounds, then rate, p50 and p99 are the medians and one slow round moves none of them', () => {
    const rounds: Round[] = [
      { streams: { main: run(1_000, 5, { p50: 10, p99: 40 }) }, ticks: { rest: 100, users: 50, ferretdb: 500 }, cache: { rest: { hits: 990, misses: 10 } } },
      { streams: { main: run(200, 5, { p50: 90, p99: 900, non2xx: 2 }) }, ticks: { rest: 100, users: 50, ferretdb: 500 }, cache: { rest: { hits: 190, misses: 10 } } },
      { streams: { main: run(900, 5, { p50: 12, p99: 44, errors: 1 }) }, ticks: { rest: 100, users: 50, ferretdb: 500 }, cache: { rest: { hits: 880, misses: 20 } } },
    ];
    const result = summarizeRounds('rest.users.get', rounds, 100, { own: ownProcesses('rest'), reader: readerProcess('rest') });
    expect(result).toMatchObject({ rps: 180, p50_ms: 12, p99_ms: 44, errors: 3, requests: 2_100, rounds: [200, 40, 180], duration_s: 15 });
    // 300 ticks of rest over 2,100 answers at 100 Hz: 1,428.6 us each; app = rest + users.
    expect(result.cpu_us_per_req['rest']).toBe(1428.6);
    expect(result.cpu_us_per_req_app).toBe(2142.9);
    expect(result.hit_rate).toBe(0.981);
    expect(result.streams).toBeUndefined();
  });

  it('when a mixed scenario ran reads and writes side by side, then the reads are the headline and the writes, their share and CPU over both are kept', () => {
    const rounds: Round[] = [1, 2, 3].map((i) => ({
      streams: { reads: run(9_000 + i * 100, 10, { p50: 4, p99: 30 }), writes: run(40, 10, { p50: 400, p99: 900, non2xx: i === 2 ? 1 : 0 }) },
      ticks: { rest: 1_000, users: 200 },
      cache: { rest: { hits: 8_900, misses: 100 } },
    }));
    const result = summarizeRounds('rest.users.mixed_95_5', rounds, 100, { main: 'reads', own: ownProcesses('rest'), reader: 'rest' });
    expect(result.rps).toBe(920);
    expect(result.streams?.['writes']).toMatchObject({ rps: 4, p50_ms: 400, p99_ms: 900, errors: 1, requests: 120 });
    expect(result.errors).toBe(1);
    expect(result.write_share).toBe(0.0043);
    expect(result.hit_rate).toBe(0.9889);
    // 3,600 ticks = 36 s of CPU over 27,720 answers (reads and writes): rest 1,082.3 + users 216.5 us each.
    expect(result.cpu_us_per_req_app).toBe(1298.8);
  });

  it('when FerretDB keeps working after the last answer, then it is idle only from the first second in which it stayed under a tenth of a core', () => {
    // Ticks every 250 ms at 100 Hz: 25 ticks is a whole core; under 2.5 ticks a window is idle.
    expect(idleAfterMs([0, 0, 1, 1, 2, 2], 100)).toBe(0);
    expect(idleAfterMs([0, 20, 40, 45, 46, 47, 47, 48], 100)).toBe(750);
    // Idle windows broken by a busy one do not count.
    expect(idleAfterMs([0, 20, 20, 20, 40, 40, 40, 40, 40], 100)).toBe(1_000);
    expect(idleAfterMs([0, 25, 50, 75, 100, 125], 100)).toBeNull();
    expect(cpuMsAfter([0, 20, 40, 45, 46, 47, 47, 48, 48, 48], 100, 2_000)).toBe(480);
    expect(cpuMsAfter([5], 100, 2_000)).toBe(0);
  });

  it('when write rounds watched FerretDB after the load, then the worst round decides the idle time, and never idle is null', () => {
    const round = (ferretdbAfter: number[]): Round => ({ streams: { main: run(20, 10, { statuses: { '200': 19, '503': 1 } }) }, ticks: { rest: 10 }, cache: {}, ferretdbAfter });
    const quiet = [0, 0, 0, 0, 0, 0, 0, 0, 0];
    const busy = [0, 20, 40, 40, 40, 40, 40, 40, 40];
    expect(summarizeRounds('rest.users.patch.c16', [round(quiet), round(busy)], 100)).toMatchObject({ ferretdb_idle_after_ms: 500, ferretdb_cpu_ms_after: 400, streams: { main: { statuses: { '200': 38, '503': 2 } } } });
    expect(summarizeRounds('rest.users.patch.c16', [round(quiet), round([0, 25, 50, 75, 100, 125])], 100).ferretdb_idle_after_ms).toBeNull();
  });

  it('when rest, the floor and the peers ran, then every ratio is computed from this run only', () => {
    const ratios = computeRatios([
      scenario('rest.users.get', 3_000, { cpu_us_per_req_app: 400, p99_ms: 30 }),
      scenario('gateway.users.get', 3_000),
      scenario('direct.users.get', 1_000, { cpu_us_per_req_app: 500, p99_ms: 60 }),
      scenario('baseline.users.get', 600),
      scenario('hive.users.get', 1_200),
      scenario('hive-gateway.users.get', 1_500),
      scenario('rest.users.get.uncached', 1_300),
      scenario('rest.users.get.nocache', 1_800),
    ]);
    expect(ratios).toMatchObject({
      rest_over_baseline: 5,
      rest_over_hive_facade: 2.5,
      gateway_over_hive_gateway: 2,
      uncached_over_hive_facade: 1.083,
      nocache_over_hive_facade: 1.5,
      uncached_over_baseline: 2.167,
      rest_over_gateway: 1,
      rest_over_direct: 3,
      rest_cpu_over_floor: 0.8,
      rest_p99_over_floor: 0.5,
      mixed_95_5_reads_over_baseline: null,
      users_writes_c1_over_floor: null,
    });
  });

  it('when a scenario was skipped or answered nothing, then its ratios are null and its targets not judged', () => {
    const results = [scenario('rest.users.get', 900), skippedScenario('gateway.users.get', 'skipped: route missing'), scenario('hive.users.get', 0)];
    const ratios = computeRatios(results);
    expect(ratios.rest_over_gateway).toBeNull();
    expect(ratios.rest_over_hive_facade).toBeNull();
    const targets = checkTargets(results, ratios);
    expect(find(targets, 'rest.users.get req/s >= 0.9x')?.met).toBeNull();
    expect(find(targets, 'rest.users.get req/s >= 1.5x hive.users.get')?.met).toBeNull();
    // No answer at all is a failure of its own.
    expect(find(targets, '0 errors in every scenario')).toMatchObject({ value: 'hive.users.get=no answer', met: false });
  });

  it('when the issue 29 scenarios ran, then each acceptance target is judged against its in-run ratio', () => {
    const results = [
      scenario('rest.users.mixed_95_5', 3_000, { hit_rate: 0.95 }),
      scenario('baseline.users.mixed_95_5', 900),
      scenario('hive.users.mixed_95_5', 2_100),
      scenario('rest.users.patch.c1', 5, { ferretdb_idle_after_ms: 0 }),
      scenario('direct.users.patch.c1', 8),
      scenario('rest.users.patch.c16', 4, { errors: 2, ferretdb_idle_after_ms: 1_250 }),
      scenario('direct.users.patch.c16', 8),
      scenario('rest.items.patch.c16', 1, { ferretdb_idle_after_ms: null }),
      scenario('rest.users.get.nocache', 1_000),
      scenario('hive.users.get', 1_100),
      scenario('rest.users.get', 3_300),
      scenario('baseline.users.get', 1_000),
      scenario('gateway.users.get', 3_600),
      scenario('hive-gateway.users.get', 3_000),
    ];
    const targets = checkTargets(results, computeRatios(results));
    expect(targets.filter((t) => t.issue === 29).map((t) => [t.target, t.value, t.met])).toEqual([
      ['rest.users.mixed_95_5 req/s >= 3x baseline.users.mixed_95_5', '3.333x', true],
      ['rest.users.mixed_95_5 req/s >= 1.5x hive.users.mixed_95_5', '1.429x', false],
      ['rest.users.mixed_95_5 read cache hit rate on the untouched hot set >= 90%', '95%', true],
      ['rest.users.patch.c1 req/s >= 0.5x direct.users.patch.c1', '0.625x', true],
      ['rest.users.patch.c16 req/s >= 0.5x direct.users.patch.c16', '0.5x', true],
      ['rest.items.patch.c1 req/s >= 0.5x direct.items.patch.c1', 'n/a', null],
      ['rest.items.patch.c16 req/s >= 0.5x direct.items.patch.c16', 'n/a', null],
      ['rest.users.patch.c16 0 errors', '2', false],
      ['rest.items.patch.c16 0 errors', '0', true],
      ['rest.users.patch.c1: FerretDB idle within 1 s after the last answer', '0 ms', true],
      ['rest.users.patch.c16: FerretDB idle within 1 s after the last answer', '1250 ms', false],
      ['rest.items.patch.c1: FerretDB idle within 1 s after the last answer', 'n/a', null],
      ['rest.items.patch.c16: FerretDB idle within 1 s after the last answer', 'not idle within the observation', false],
      ['rest.users.get.nocache req/s >= 1x hive.users.get', '0.909x', false],
      ['rest.users.get req/s >= 2.5x baseline.users.get', '3.3x', true],
      ['rest.users.get req/s >= 1.5x hive.users.get', '3x', true],
      ['gateway.users.get req/s >= 1.2x hive-gateway.users.get', '1.2x', true],
    ]);
    // No reference figure is left anywhere: every target names two scenarios of the run (or one and a bound).
    expect(targets.some((t) => /reference|not measured/.test(t.target))).toBe(false);
  });

  it('when the REST path spends more than 250 us or a read has a slow p99, then the earlier targets are missed', () => {
    const rest = scenario('rest.users.get', 900, { cpu_us_per_req: { rest: 220, gateway: 1, users: 60, ferretdb: 500 }, p99_ms: 51 });
    const targets = checkTargets([rest, scenario('gateway.users.get', 1_000, { errors: 3 })], computeRatios([rest, scenario('gateway.users.get', 1_000)]));
    expect(find(targets, 'rest.users.get CPU')).toMatchObject({ issue: 9, value: '280 us', met: false });
    expect(find(targets, 'rest.users.get p99 <= 50 ms')?.met).toBe(false);
    expect(find(targets, 'gateway.users.get p99 <= 50 ms')?.met).toBe(true);
    expect(find(targets, '0 errors in every scenario')).toMatchObject({ value: 'gateway.users.get=3', met: false });
    const silent = [scenario('rest.token', 0)];
    expect(find(checkTargets(silent, computeRatios(silent)), '0 errors in every scenario')).toMatchObject({ value: 'rest.token=no answer', met: false });
  });

  it('when the floor ran, then app CPU and p99 are bounded by it (issue 19)', () => {
    const results = [scenario('rest.users.get', 2_000, { cpu_us_per_req_app: 600, p99_ms: 30 }), scenario('direct.users.get', 2_400, { cpu_us_per_req_app: 300, p99_ms: 25 })];
    const targets = checkTargets(results, computeRatios(results));
    expect(find(targets, 'rest.users.get app CPU <= 2x direct.users.get')).toMatchObject({ issue: 19, value: '2x', met: true });
    expect(find(targets, 'rest.users.get p99 <= 1.5x direct.users.get')).toMatchObject({ value: '1.2x', met: true });
    expect(find(targets, 'rest.users.get.uncached req/s >= 1.5x baseline.users.get')?.met).toBeNull();
  });

  it('when each system runs its own processes, then a scenario sums only its own app CPU, and Hive its facade, gateway and our subgraphs', () => {
    const cpu = { rest: 300, gateway: 200, users: 100, 'uncached:rest': 7, 'uncached:rest-nocache': 17, 'uncached:users': 19, 'baseline-facade': 5, 'baseline-items': 2, direct: 3, 'hive-facade': 11, 'hive-gateway': 13, ferretdb: 900 };
    expect(appCpu(cpu, ownProcesses('rest'))).toBe(600);
    expect(appCpu(cpu, ownProcesses('direct'))).toBe(3);
    expect(appCpu(cpu, ownProcesses('baseline'))).toBe(7);
    expect(appCpu(cpu, ownProcesses('baseline-gateway'))).toBe(7);
    expect(appCpu(cpu, ownProcesses('rest-uncached'))).toBe(26);
    // The uncached system's second facade (cache off, dedup on) and the same subgraphs, not the first facade.
    expect(appCpu(cpu, ownProcesses('rest-nocache'))).toBe(36);
    expect(appCpu(cpu, ownProcesses('hive'))).toBe(124);
    expect(appCpu(cpu, ownProcesses('hive-gateway'))).toBe(124);
    expect([readerProcess('rest'), readerProcess('gateway'), readerProcess('rest-uncached'), readerProcess('rest-nocache'), readerProcess('hive'), readerProcess('direct')]).toEqual(['rest', 'gateway', 'uncached:rest', 'uncached:rest-nocache', null, null]);
  });

  it('when read_cache counters moved during a run, then the hits and misses per process are their deltas', () => {
    const sample = (name: string, value: number, labels: Record<string, string> = {}): MetricSample => ({ name, labels, value });
    const before = {
      rest: [sample('read_cache_hits_total', 10), sample('read_cache_misses_total', 5), sample('http_requests_total', 99)],
      gateway: [sample('read_cache_lookups_total', 1, { result: 'hit' }), sample('read_cache_lookups_total', 1, { result: 'miss' })],
    };
    const after = {
      rest: [sample('read_cache_hits_total', 40), sample('read_cache_misses_total', 15), sample('read_cache_invalidations_total', 3), sample('http_requests_total', 500)],
      gateway: [
        sample('read_cache_lookups_total', 4, { result: 'hit' }),
        sample('read_cache_lookups_total', 1, { result: 'miss' }),
        sample('read_cache_lookups_total', 2, { result: 'stale_miss' }),
        sample('read_cache_lookups_total', 9, { result: 'bypass' }),
      ],
      users: [sample('http_requests_total', 50)],
    };
    const counts = addCacheCounts(before, after);
    // A stale entry is a miss; a bypass (not cacheable) is neither.
    expect(counts).toEqual({ rest: { hits: 30, misses: 10 }, gateway: { hits: 3, misses: 2 } });
    addCacheCounts(before, after, counts);
    expect(counts['rest']).toEqual({ hits: 60, misses: 20 });
    expect(formatHitRates(counts)).toBe('rest 75.0% (60/80), gateway 60.0% (6/10)');
    expect(hitRate(counts['rest'])).toBe(0.75);
    expect(hitRate({ hits: 0, misses: 0 })).toBeNull();
  });

  it('when no process has cache counters, then the hit rate is n/a', () => {
    expect(addCacheCounts({ rest: [] }, { rest: [{ name: 'http_requests_total', labels: {}, value: 3 }] })).toEqual({});
    expect(formatHitRates(undefined)).toBe('n/a');
    expect(formatHitRates({ rest: { hits: 0, misses: 0 } })).toBe('n/a');
  });

  it('when filtering scenarios, then exact names and * wildcards match, dots are literal, and no filter matches all', () => {
    expect(matchesOnly('rest.users.get', null)).toBe(true);
    expect(matchesOnly('rest.users.get', ['rest.users.get'])).toBe(true);
    expect(matchesOnly('rest.users.get.uncached', ['rest.users.get'])).toBe(false);
    expect(matchesOnly('hive.users.mixed_95_5', ['*.mixed_95_5'])).toBe(true);
    expect(matchesOnly('rest.items.patch.c16', ['x', '*.patch.*'])).toBe(true);
    expect(matchesOnly('restXusers.get', ['rest.users*'])).toBe(false);
  });

  it('when formatting, then every scenario has a row, skipped ones say why, mixed writes and write idle times have lines', () => {
    const mixed = summarizeRounds('rest.users.mixed_80_20', [{ streams: { reads: run(9_900, 10), writes: run(100, 10) }, ticks: {}, cache: { rest: { hits: 9, misses: 1 } } }], 100, { main: 'reads', reader: 'rest' });
    const writes = summarizeRounds('rest.users.patch.c1', [{ streams: { main: run(30, 10, { statuses: { '200': 30 } }) }, ticks: {}, cache: {}, ferretdbAfter: [0, 0, 0, 0, 0, 0, 0, 0, 0] }], 100);
    const results = [scenario('rest.users.get', 900, { cpu_us_per_req: { rest: 12 } }), skippedScenario('rest.items.list', 'skipped: route missing'), mixed, writes];
    const table = formatTable(results, computeRatios(results), checkTargets(results, computeRatios(results)));
    expect(table).toMatch(/rest\.users\.get\s+900/);
    expect(table).toMatch(/rest\.items\.list\s+skipped: route missing/);
    expect(table).toMatch(/\+ writes\s+10\.0 .*\(share 1\.0%, hit rate 90\.0%\)/);
    expect(table).toContain('rest.users.patch.c1: 3 writes/s (rounds 3), answers 200 x30; FerretDB idle after 0 ms, 0 ms CPU in the 2 s after');
    expect(table).toMatch(/rest_over_baseline\s+n\/a\s+rest\.users\.get \/ baseline\.users\.get/);
    expect(table).toContain('cache hit rate rest.users.get: n/a');
    expect(table).toContain('[ -- ] issue 29: rest.users.get req/s >= 1.5x hive.users.get: n/a');
  });

  it('when a process idled in every scenario with enough answers, then the table leaves its column out but the databases stay', () => {
    const results = [
      scenario('rest.users.get', 900, { cpu_us_per_req: { rest: 500, 'uncached:rest': 3, ferretdb: 0.5 }, cpu_us_per_req_app: 500 }),
      // 40 answers: one idle tick of auth is 250 us each, which says nothing about auth.
      scenario('rest.users.patch.c1', 4, { cpu_us_per_req: { rest: 900, auth: 250 }, cpu_us_per_req_app: 1_150 }),
    ];
    const header = formatTable(results, computeRatios(results), []).split('\n')[0] ?? '';
    expect(header).toContain('rest');
    expect(header).toContain('ferretdb');
    expect(header).not.toContain('uncached:rest');
    expect(header).not.toContain('auth');
  });
});
