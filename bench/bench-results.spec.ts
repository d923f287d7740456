import {
  addCacheCounts,
  appCpu,
  checkTargets,
  computeRatios,
  cpuPerRequest,
  formatHitRates,
  formatTable,
  mergeRuns,
  ownProcesses,
  skippedScenario,
  summarizeRun,
  type MetricSample,
  type ScenarioResult,
} from './bench-results';

const scenario = (name: string, rps: number, extra: Partial<ScenarioResult> = {}): ScenarioResult => ({
  ...summarizeRun(name, { requests: rps * 10, durationSeconds: 10, p50: 5, p99: 20, errors: 0, non2xx: 0 }, {}),
  ...extra,
});

describe('bench results', () => {
  it('when ticks advance during a run, then CPU per request is the tick delta in microseconds over the requests', () => {
    const cpu = cpuPerRequest({ rest: 1_000, gateway: 2_000, gone: 5 }, { rest: 1_050, gateway: 2_100 }, 10_000, 100);
    // 50 ticks at 100 Hz = 0.5 s = 500,000 us over 10,000 requests.
    expect(cpu).toEqual({ rest: 50, gateway: 100 });
  });

  it('when no request completed, then CPU per request is 0 rather than infinite', () => {
    expect(cpuPerRequest({ rest: 1 }, { rest: 9 }, 0, 100)).toEqual({ rest: 0 });
  });

  it('when summing application CPU, then the database, redis and the load generator are left out', () => {
    expect(appCpu({ rest: 100, gateway: 80, users: 40.5, ferretdb: 900, redis: 10, 'load-generator': 70 })).toBe(220.5);
  });

  it('when a run had non-2xx answers, then they count as errors unless the scenario expects them', () => {
    const run = { requests: 1_000, durationSeconds: 4, p50: 1.234, p99: 9.876, errors: 2, non2xx: 3 };
    const counted = summarizeRun('rest.users.get', run, { rest: 10 });
    expect(counted).toMatchObject({ rps: 250, p50_ms: 1.23, p99_ms: 9.88, errors: 5, requests: 1_000, cpu_us_per_req_app: 10 });
    expect(summarizeRun('x', run, {}, { expectNon2xx: true }).errors).toBe(2);
  });

  it('when rest, gateway and direct ran, then the ratios divide the req/s of rest by the other two', () => {
    const ratios = computeRatios([scenario('rest.users.get', 900), scenario('gateway.users.get', 1_000), scenario('direct.users.get', 3_000)]);
    expect(ratios).toMatchObject({ rest_over_gateway: 0.9, rest_over_direct: 0.3, rest_remote_over_gateway: null, rest_over_baseline: null });
    const withRemote = computeRatios([scenario('gateway.users.get', 1_000), scenario('rest.users.get.remote', 950)]);
    expect(withRemote).toMatchObject({ rest_over_gateway: null, rest_over_direct: null, rest_remote_over_gateway: 0.95 });
  });

  it('when a scenario was skipped, then its ratio is null and its target is not judged', () => {
    const results = [scenario('rest.users.get', 900), skippedScenario('gateway.users.get', 'skipped: route missing')];
    const ratios = computeRatios(results);
    expect(ratios.rest_over_gateway).toBeNull();
    const targets = checkTargets(results, ratios);
    expect(targets.find((t) => t.target.startsWith('rest.users.get >= 0.9x'))?.met).toBeNull();
    expect(targets.find((t) => t.target === '0 errors in every scenario')?.met).toBe(true);
  });

  it('when the REST path spends more than 250 us or a read has a slow p99, then those targets are missed', () => {
    const rest = scenario('rest.users.get', 900, { cpu_us_per_req: { rest: 220, gateway: 1, users: 60, ferretdb: 500 }, p99_ms: 51 });
    const targets = checkTargets([rest, scenario('gateway.users.get', 1_000, { errors: 3 })], computeRatios([rest, scenario('gateway.users.get', 1_000)]));
    expect(targets.find((t) => t.target.startsWith('rest.users.get CPU'))).toMatchObject({ value: '280 us', met: false });
    expect(targets.find((t) => t.target === 'rest.users.get p99 <= 50 ms')?.met).toBe(false);
    expect(targets.find((t) => t.target === 'gateway.users.get p99 <= 50 ms')?.met).toBe(true);
    expect(targets.find((t) => t.target === '0 errors in every scenario')).toMatchObject({ value: 'gateway.users.get=3', met: false });
  });

  it('when the remote facade ran, then its ratio and its own path (facade + gateway + users) are judged', () => {
    const results = [
      scenario('gateway.users.get', 1_000),
      scenario('rest.users.get.remote', 950, { cpu_us_per_req: { 'rest-remote': 100, gateway: 50, users: 90, rest: 1 }, p99_ms: 40 }),
    ];
    const targets = checkTargets(results, computeRatios(results));
    expect(targets.find((t) => t.target === 'rest.users.get.remote >= 0.9x gateway.users.get req/s')).toMatchObject({ value: '0.95x', met: true });
    expect(targets.find((t) => t.target === 'rest.users.get.remote CPU (rest-remote+gateway+users) <= 250 us')).toMatchObject({ value: '240 us', met: true });
    expect(targets.find((t) => t.target === 'rest.users.get.remote p99 <= 50 ms')?.met).toBe(true);
  });

  it('when the baseline, the floor and the uncached system ran, then the issue 19 ratios compare req/s, app CPU and p99', () => {
    const results = [
      scenario('rest.users.get', 2_000, { cpu_us_per_req_app: 600, p99_ms: 30 }),
      scenario('rest.users.get.uncached', 1_200),
      scenario('gateway.users.get', 2_634),
      scenario('direct.users.get', 2_400, { cpu_us_per_req_app: 300, p99_ms: 25 }),
      scenario('baseline.users.get', 800),
    ];
    expect(computeRatios(results)).toMatchObject({
      rest_over_baseline: 2.5,
      rest_cpu_over_floor: 2,
      rest_p99_over_floor: 1.2,
      uncached_over_baseline: 1.5,
      // Against the two reference runs (1,312 and 1,586 req/s; Hive Gateway 1,317 and 1,916).
      rest_over_hive_facade_ref: [1.524, 1.261],
      uncached_over_hive_facade_ref: [0.915, 0.757],
      gateway_over_hive_gateway_ref: [2, 1.375],
    });
  });

  it('when a ratio meets a reference target against one reference run but not the faster one, then the target is missed', () => {
    const results = [
      scenario('rest.users.get', 2_000, { cpu_us_per_req_app: 600, p99_ms: 30 }),
      scenario('direct.users.get', 2_400, { cpu_us_per_req_app: 300, p99_ms: 25 }),
      scenario('baseline.users.get', 800),
    ];
    const targets = checkTargets(results, computeRatios(results));
    const find = (prefix: string) => targets.find((t) => t.target.startsWith(prefix));
    expect(find('rest.users.get >= 2.5x baseline')).toMatchObject({ value: '2.5x', met: true });
    expect(find('rest.users.get >= 1.5x facade -> Hive Gateway')).toMatchObject({ value: '1.524x / 1.261x', met: false });
    expect(find('rest.users.get >= 1.5x facade -> Hive Gateway')?.target).toContain('not measured');
    expect(find('rest.users.get app CPU <= 2x')).toMatchObject({ value: '2x', met: true });
    expect(find('rest.users.get p99 <= 1.5x')).toMatchObject({ value: '1.2x', met: true });
    // The uncached system and the gateway did not run: not judged.
    expect(find('rest.users.get.uncached >= 1.5x baseline')?.met).toBeNull();
    expect(find('gateway.users.get >= 1.2x Hive Gateway')?.met).toBeNull();
  });

  it('when each system runs its own processes, then a scenario sums only its own app CPU', () => {
    const cpu = { rest: 300, gateway: 200, users: 100, 'uncached:rest': 7, 'baseline-facade': 5, direct: 3, ferretdb: 900 };
    expect(appCpu(cpu, ownProcesses('rest'))).toBe(600);
    expect(appCpu(cpu, ownProcesses('direct'))).toBe(3);
    expect(appCpu(cpu, ownProcesses('baseline'))).toBe(5);
    expect(appCpu(cpu, ownProcesses('rest-uncached'))).toBe(7);
    expect(summarizeRun('baseline.users.get', { requests: 10, durationSeconds: 1, p50: 1, p99: 2, errors: 0, non2xx: 0 }, cpu, { own: ownProcesses('baseline') }).cpu_us_per_req_app).toBe(5);
  });

  it('when read_cache counters moved during a run, then the hits and misses per process are their deltas', () => {
    const sample = (name: string, value: number, labels: Record<string, string> = {}): MetricSample => ({ name, labels, value });
    const before = {
      rest: [sample('read_cache_hits_total', 10), sample('read_cache_misses_total', 5), sample('http_requests_total', 99)],
      gateway: [sample('read_cache_lookups_total', 1, { result: 'hit' }), sample('read_cache_lookups_total', 1, { result: 'miss' })],
    };
    const after = {
      rest: [sample('read_cache_hits_total', 40), sample('read_cache_misses_total', 15), sample('read_cache_invalidations_total', 3), sample('http_requests_total', 500)],
      gateway: [sample('read_cache_lookups_total', 4, { result: 'hit' }), sample('read_cache_lookups_total', 1, { result: 'miss' })],
      users: [sample('http_requests_total', 50)],
    };
    const counts = addCacheCounts(before, after);
    expect(counts).toEqual({ rest: { hits: 30, misses: 10 }, gateway: { hits: 3, misses: 0 } });
    // A second round adds up.
    addCacheCounts(before, after, counts);
    expect(counts['rest']).toEqual({ hits: 60, misses: 20 });
    expect(formatHitRates(counts)).toBe('rest 75.0% (60/80), gateway 100.0% (6/6)');
  });

  it('when no process has cache counters, then the hit rate is n/a', () => {
    expect(addCacheCounts({ rest: [] }, { rest: [{ name: 'http_requests_total', labels: {}, value: 3 }] })).toEqual({});
    expect(formatHitRates(undefined)).toBe('n/a');
    expect(formatHitRates({ rest: { hits: 0, misses: 0 } })).toBe('n/a');
  });

  it('when interleaved rounds are merged, then counts add up, p50 is weighted by requests and p99 is the worst', () => {
    const merged = mergeRuns([
      { requests: 300, durationSeconds: 5, p50: 10, p99: 40, errors: 1, non2xx: 0 },
      { requests: 100, durationSeconds: 5, p50: 30, p99: 90, errors: 0, non2xx: 2 },
    ]);
    expect(merged).toEqual({ requests: 400, durationSeconds: 10, p50: 15, p99: 90, errors: 1, non2xx: 2 });
    expect(summarizeRun('x', merged, {}).rps).toBe(40);
    expect(mergeRuns([])).toEqual({ requests: 0, durationSeconds: 0, p50: 0, p99: 0, errors: 0, non2xx: 0 });
  });

  it('when formatting, then every scenario has a row and skipped ones say why', () => {
    const results = [scenario('rest.users.get', 900, { cpu_us_per_req: { rest: 12 } }), skippedScenario('rest.items.list', 'skipped: route missing')];
    const table = formatTable(results, computeRatios(results), checkTargets(results, computeRatios(results)));
    expect(table).toMatch(/rest\.users\.get\s+900/);
    expect(table).toContain('rest.items.list              skipped: route missing');
    expect(table).toContain('rest/gateway (users.get req/s): n/a');
    expect(table).toContain('rest/baseline (users.get req/s, docs-default chain measured in this run): n/a');
    expect(table).toContain('cache hit rate rest.users.get: n/a');
  });

  it('when a process idled in every scenario, then the table leaves its column out but the databases stay', () => {
    const results = [scenario('rest.users.get', 900, { cpu_us_per_req: { rest: 500, 'uncached:rest': 3, ferretdb: 0.5 }, cpu_us_per_req_app: 500 })];
    const header = formatTable(results, computeRatios(results), []).split('\n')[0] ?? '';
    expect(header).toContain('rest');
    expect(header).toContain('ferretdb');
    expect(header).not.toContain('uncached:rest');
  });
});
