import { appCpu, checkTargets, computeRatios, cpuPerRequest, formatTable, mergeRuns, skippedScenario, summarizeRun, type ScenarioResult } from './bench-results';

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
    expect(ratios).toEqual({ rest_over_gateway: 0.9, rest_over_direct: 0.3, rest_embedded_over_gateway: null });
    const withEmbedded = computeRatios([scenario('gateway.users.get', 1_000), scenario('rest.users.get.embedded', 950)]);
    expect(withEmbedded).toEqual({ rest_over_gateway: null, rest_over_direct: null, rest_embedded_over_gateway: 0.95 });
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
    const rest = scenario('rest.users.get', 900, { cpu_us_per_req: { rest: 100, gateway: 120, users: 60, ferretdb: 500 }, p99_ms: 51 });
    const targets = checkTargets([rest, scenario('gateway.users.get', 1_000, { errors: 3 })], computeRatios([rest, scenario('gateway.users.get', 1_000)]));
    expect(targets.find((t) => t.target.startsWith('rest.users.get CPU'))).toMatchObject({ value: '280 us', met: false });
    expect(targets.find((t) => t.target === 'rest.users.get p99 <= 50 ms')?.met).toBe(false);
    expect(targets.find((t) => t.target === 'gateway.users.get p99 <= 50 ms')?.met).toBe(true);
    expect(targets.find((t) => t.target === '0 errors in every scenario')).toMatchObject({ value: 'gateway.users.get=3', met: false });
  });

  it('when the embedded facade ran, then its ratio and its own path (facade + users) are judged', () => {
    const results = [
      scenario('gateway.users.get', 1_000),
      scenario('rest.users.get.embedded', 950, { cpu_us_per_req: { 'rest-embedded': 150, users: 90, gateway: 1 }, p99_ms: 40 }),
    ];
    const targets = checkTargets(results, computeRatios(results));
    expect(targets.find((t) => t.target === 'rest.users.get.embedded >= 0.9x gateway.users.get req/s')).toMatchObject({ value: '0.95x', met: true });
    expect(targets.find((t) => t.target === 'rest.users.get.embedded CPU (rest-embedded+users) <= 250 us')).toMatchObject({ value: '240 us', met: true });
    expect(targets.find((t) => t.target === 'rest.users.get.embedded p99 <= 50 ms')?.met).toBe(true);
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
  });
});
