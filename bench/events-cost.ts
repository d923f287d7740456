/**
 * `npm run bench:events`: what events cost the write path, and how late their deliveries arrive (issue 26: "delivery
 * lag p50/p99 under the write scenarios, and the write path's cost with events on vs off; goal: at most 15 % fewer
 * writes per second").
 *
 * Each round starts fresh systems one after the other, production mode, from dist/ (FerretDB, redis-server and the
 * eight processes from libs/dev-stack): `off` (`EVENTS=off`); `recorded` (`EVENTS=on`, no webhook: every write's event
 * recorded, relayed, stored in the feed and fanned out to no subscriber: the write path's cost, which the goal is
 * about); `on` (`EVENTS=on` and a webhook subscribed to `item.updated` on an https receiver on loopback, which the
 * processes trust, as the events tests do: every write also causes a delivery, whose worker shares this machine's two
 * cores with the writers). On each, WRITERS closed-loop clients PATCH an item of their own (no claim contention: the
 * path, not the queue of one record) for the duration (`--rate=N`: N writes a second in all, paced, instead of as fast
 * as they are answered); the writes per second are compared in the same round, the rounds alternate the order, and
 * each mode reports the median of its rounds. Lag: a delivery's arrival at the receiver minus its event's
 * `occurred_at`, for every delivery of the `on` systems, waited for up to 60 s after the load; a worker that falls
 * behind the writers shows as deliveries that arrive after the load (the backlog) and as lag that grows with it.
 *
 *   npm run bench:events                       # 3 rounds of off, recorded, on; 4 writers, 20 s
 *   npm run bench:events -- --rounds=5 --writers=8 --duration=30
 *   npm run bench:events -- --modes=off,recorded # only these
 *   npm run bench:events -- --modes=on --rate=30 # the lag at 30 writes a second
 *   npm run bench:events -- --db-profile         # and the database's time per write by command shape
 *   npm run bench:events -- --cpu-prof=/tmp/prof # a V8 CPU profile of every process, written as it stops
 *
 * Each round also prints the CPU each process spent per acknowledged write during the load, and for `on` per write
 * until its delivery arrived (the load and the drain after it: what a write costs wherever its work ran).
 * `--db-profile` puts the test kit's wire recorder (libs/testing) between the processes and FerretDB and sums each
 * command's time to its reply by shape (database, collection, command, filter fields): wall time, so a command queued
 * behind SQLite's one writer counts its wait; the recorder costs some throughput itself, so compare rates without it.
 *
 * The load loop and the receiver are written here (a few lines each): the bench's load generator drives one request
 * shape per stream without awaiting per-client state, and the test kit's receiver is for tests only.
 */
import { createServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  loopbackTls,
  makeTempDir,
  ownSystemEnv,
  repositoryRoot,
  startFerretDb,
  startRedis,
  startSystem,
} from '@platform/dev-stack';
import { startMongoWireRecorder, type RecordedCommand } from '../libs/testing/src/mongo-wire-recorder';
import { readTicks, ticksPerSecond } from './proc-stats';

const ADMIN = { username: 'bench-admin', password: 'bench-admin-password-1' };
const log = (message: string) => process.stdout.write(`[events-bench] ${message}\n`);

const option = (name: string, fallback: number): number => {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const value = arg ? Number(arg.split('=')[1]) : fallback;
  if (!(value > 0)) throw new Error(`--${name} takes a positive number`);
  return value;
};
const ROUNDS = option('rounds', 3);
const WRITERS = option('writers', 4);
const DURATION_S = option('duration', 20);
/** `--rate=N`: N writes a second in all, paced; absent: as fast as they are answered. */
const RATE = process.argv.some((a) => a.startsWith('--rate=')) ? option('rate', 1) : undefined;
type Mode = 'off' | 'recorded' | 'on';
const ALL_MODES: Mode[] = ['off', 'recorded', 'on'];
/** `--cpu-prof=DIR`: every process writes a V8 CPU profile into DIR when it stops (for reading by hand). */
const CPU_PROF = process.argv.find((a) => a.startsWith('--cpu-prof='))?.slice('--cpu-prof='.length);
/** `--db-profile`: the processes reach FerretDB through the wire recorder, and each round prints where its time went. */
const DB_PROFILE = process.argv.includes('--db-profile');
/** `--modes=off,recorded`: only these (`--split`, of the release before, is every mode: the default). */
const MODES: Mode[] = (() => {
  const arg = process.argv.find((a) => a.startsWith('--modes='));
  if (!arg) return ALL_MODES;
  const modes = arg.slice('--modes='.length).split(',') as Mode[];
  if (modes.length === 0 || modes.some((m) => !ALL_MODES.includes(m))) throw new Error(`--modes takes ${ALL_MODES.join(',')}`);
  return ALL_MODES.filter((m) => modes.includes(m));
})();

interface Outcome {
  writesPerSecond: number;
  ok: number;
  errors: number;
  lagsMs: number[];
  /** CPU per acknowledged write of each process over the load (ms), the bench process included. */
  cpuPerWriteMs: Record<string, number>;
  /** `on`: deliveries that arrived while the load ran, and each process's CPU per write until its delivery arrived. */
  deliveredDuringLoad?: number;
  cpuPerDeliveredWriteMs?: Record<string, number>;
}

async function json(url: string, init: RequestInit & { token?: string } = {}): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  const response = await fetch(url, { ...init, headers });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

/** An https receiver on loopback answering 204, keeping each delivery's arrival instant and body. */
function startReceiver(tls: { certFile: string; keyFile: string }): Promise<{ server: Server; url: string; arrivals: Array<{ at: number; body: string }> }> {
  const arrivals: Array<{ at: number; body: string }> = [];
  const server = createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      arrivals.push({ at: Date.now(), body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ server, url: `https://127.0.0.1:${port}/hook`, arrivals });
    }),
  );
}

async function run(mode: Mode): Promise<Outcome> {
  const events = mode !== 'off';
  const delivered = mode === 'on';
  const dir = makeTempDir('events-bench-');
  const tls = loopbackTls(dir.path);
  const ferret = await startFerretDb({ dataDir: join(dir.path, 'ferretdb') });
  const redis = await startRedis({ dataDir: join(dir.path, 'redis') });
  const receiver = await startReceiver(tls);
  const recorder = DB_PROFILE ? await startMongoWireRecorder(ferret.url) : undefined;
  const system = await startSystem({
    rootDir: repositoryRoot(),
    mongoUrl: recorder?.url ?? ferret.url,
    redisUrl: redis.url,
    jwtSecret: 'events-bench-jwt-secret-0123456789abcdefghijkl',
    freePorts: true,
    logDir: dir.path,
    env: {
      ...ownSystemEnv(join(dir.path, 'data'), ADMIN),
      METRICS_PORT: 'off',
      EVENTS: events ? 'on' : 'off',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      NODE_EXTRA_CA_CERTS: tls.certFile,
      ...(CPU_PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${CPU_PROF}` } : {}),
    },
  });
  try {
    const rest = system.urls.rest;
    const login = await fetch(`${rest}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(ADMIN),
    });
    const token = ((await login.json()) as { access_token: string }).access_token;
    if (delivered) {
      const hook = await json(`${rest}/webhooks`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, event_types: ['item.updated'] }),
      });
      if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
    }
    const items: number[] = [];
    for (let i = 0; i < WRITERS; i += 1) {
      const created = await json(`${rest}/items/`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `bench-${i}`, price: 1 }),
      });
      if (created.status !== 201) throw new Error(`item: ${created.status}`);
      items.push(created.body?.['id'] as number);
    }
    const pids: Record<string, number | undefined> = {
      ferretdb: ferret.process.child.pid,
      redis: redis.process.child.pid,
      bench: process.pid,
      ...Object.fromEntries([...system.processes].map(([name, proc]) => [name, proc.child.pid])),
    };
    const ticks = () => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, readTicks(pid) ?? 0]));
    const before = ticks();
    const firstCommand = recorder?.commands.length ?? 0;
    let ok = 0;
    let errors = 0;
    const started = Date.now();
    const until = started + DURATION_S * 1000;
    // Paced: writer w sends its n-th write at started + (n * WRITERS + w) / RATE seconds, or at once when behind.
    const pace = async (writer: number, n: number) => {
      if (RATE === undefined) return;
      const at = started + ((n * WRITERS + writer) / RATE) * 1000;
      if (at > Date.now()) await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
    };
    await Promise.all(
      items.map(async (id, writer) => {
        for (let n = 0; ; n += 1) {
          await pace(writer, n);
          if (Date.now() >= until) break;
          const answer = await json(`${rest}/items/${id}`, {
            method: 'PATCH',
            token,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ price: writer + n / 100 }),
          }).catch(() => ({ status: 0, body: null }));
          if (answer.status === 200) ok += 1;
          else errors += 1;
        }
      }),
    );
    const elapsedS = (Date.now() - started) / 1000;
    const after = ticks();
    const deliveredDuringLoad = receiver.arrivals.length;
    if (recorder) logDatabaseTime(recorder.commands.slice(firstCommand), ok);
    const perWrite = (to: Record<string, number>) =>
      Object.fromEntries(
        Object.keys(pids).map((name) => [name, ((to[name]! - before[name]!) / CLK / Math.max(ok, 1)) * 1000]),
      );
    const cpuPerWriteMs = perWrite(after);
    let cpuPerDeliveredWriteMs: Record<string, number> | undefined;
    if (delivered) {
      // Every acknowledged write's delivery, or 60 s.
      const deadline = Date.now() + 60_000;
      while (receiver.arrivals.length < ok && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      cpuPerDeliveredWriteMs = perWrite(ticks());
    }
    const lagsMs = receiver.arrivals
      .map(({ at, body }) => at - Date.parse((JSON.parse(body) as { occurred_at: string }).occurred_at))
      .sort((a, b) => a - b);
    if (delivered && receiver.arrivals.length < ok) log(`only ${receiver.arrivals.length} of ${ok} deliveries within 60 s`);
    return {
      writesPerSecond: ok / elapsedS,
      ok,
      errors,
      lagsMs,
      cpuPerWriteMs,
      ...(delivered ? { deliveredDuringLoad, cpuPerDeliveredWriteMs } : {}),
    };
  } finally {
    await system.stop();
    await recorder?.close();
    await Promise.all([redis.process.stop(), ferret.process.stop()]);
    await new Promise((resolve) => receiver.server.close(resolve));
    dir.remove();
  }
}

const CLK = ticksPerSecond();

/** The database's time per acknowledged write, by command shape (database, command, collection, filter fields). */
function logDatabaseTime(commands: RecordedCommand[], writes: number): void {
  const shapes = new Map<string, { count: number; ms: number }>();
  for (const command of commands) {
    if (command.ms === undefined || ['hello', 'isMaster', 'ping', 'endSessions'].includes(command.name)) continue;
    const body = command.body;
    const first = (list: unknown, key: string) => (Array.isArray(list) ? (list[0] as Record<string, unknown> | undefined)?.[key] : undefined);
    const filter = (body['filter'] ?? body['query'] ?? first(body['updates'], 'q') ?? first(body['deletes'], 'q') ?? {}) as Record<string, unknown>;
    const shape = `${command.db}.${String(body[command.name])} ${command.name} {${Object.keys(filter).join(',')}}`;
    const entry = shapes.get(shape) ?? { count: 0, ms: 0 };
    entry.count += 1;
    entry.ms += command.ms;
    shapes.set(shape, entry);
  }
  const total = [...shapes.values()].reduce((sum, e) => sum + e.ms, 0);
  log(`  database time per write ${(total / Math.max(writes, 1)).toFixed(2)} ms (wall, queued time included), by shape:`);
  for (const [shape, { count, ms }] of [...shapes].sort(([, a], [, b]) => b.ms - a.ms).slice(0, 14)) {
    log(`    ${(ms / Math.max(writes, 1)).toFixed(2).padStart(6)} ms/write ${(ms / count).toFixed(1).padStart(7)} ms x ${String(count).padStart(5)}  ${shape}`);
  }
}
const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
/** The middle value (of an even count, the mean of the two in the middle). */
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
};
const cpuLine = (perWrite: Record<string, number>) => {
  const total = Object.values(perWrite).reduce((sum, ms) => sum + ms, 0);
  return (
    `${total.toFixed(2)} ms: ` +
    Object.entries(perWrite)
      .filter(([, ms]) => ms >= 0.05)
      .sort(([, a], [, b]) => b - a)
      .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
      .join(', ')
  );
};

async function main(): Promise<void> {
  log(
    `${ROUNDS} rounds of ${MODES.join(', ')}, ${WRITERS} writers, ${DURATION_S} s each${RATE === undefined ? '' : `, ${RATE} writes/s in all`}, load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  );
  const outcomes = new Map<Mode, Outcome[]>(MODES.map((mode) => [mode, []]));
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const mode of round % 2 === 1 ? MODES : [...MODES].reverse()) {
      const outcome = await run(mode);
      outcomes.get(mode)!.push(outcome);
      log(
        `round ${round} events ${mode.padEnd(8)}: ${outcome.writesPerSecond.toFixed(1)} writes/s (${outcome.ok} ok, ${outcome.errors} errors)` +
          (mode === 'on'
            ? `, ${outcome.lagsMs.length} deliveries (${outcome.deliveredDuringLoad} during the load), lag p50 ${percentile(outcome.lagsMs, 0.5)} ms p99 ${percentile(outcome.lagsMs, 0.99)} ms`
            : ''),
      );
      // Where each write's CPU went during the load, and for `on` until its delivery arrived.
      log(`  CPU per write during the load ${cpuLine(outcome.cpuPerWriteMs)}`);
      if (outcome.cpuPerDeliveredWriteMs) log(`  CPU per write until delivered ${cpuLine(outcome.cpuPerDeliveredWriteMs)}`);
    }
  }
  const rate = (mode: Mode) => median(outcomes.get(mode)!.map((o) => o.writesPerSecond));
  const errors = (mode: Mode) => outcomes.get(mode)!.reduce((s, o) => s + o.errors, 0);
  const fewer = (mode: Mode) => 1 - rate(mode) / rate('off');
  const has = (mode: Mode) => MODES.includes(mode);
  for (const mode of MODES) log(`median writes/s ${mode}: ${rate(mode).toFixed(1)} (rounds ${outcomes.get(mode)!.map((o) => o.writesPerSecond.toFixed(1)).join(', ')}), errors ${errors(mode)}`);
  /** Each round's own ratio (its two systems ran back to back, so a slow spell of the machine touches both). */
  const paired = (mode: Mode) =>
    median(outcomes.get(mode)!.map((o, i) => 1 - o.writesPerSecond / outcomes.get('off')![i]!.writesPerSecond));
  const cpu = (o: Outcome) => Object.values(o.cpuPerWriteMs).reduce((sum, ms) => sum + ms, 0);
  if (has('off') && has('recorded')) {
    const cost = fewer('recorded');
    log(
      `the write path's cost with events on (recorded, relayed, stored; no subscriber) against off: ${(cost * 100).toFixed(1)} % fewer writes/s ` +
        `(median of the rounds' own ratios ${(paired('recorded') * 100).toFixed(1)} %; CPU per write, medians, ${median(outcomes.get('recorded')!.map(cpu)).toFixed(2)} ms against ${median(outcomes.get('off')!.map(cpu)).toFixed(2)}) ` +
        `(goal <= 15 %: ${cost <= 0.15 ? 'met' : 'NOT met'})`,
    );
  }
  if (has('on')) {
    const on = outcomes.get('on')!;
    const lags = on.flatMap((o) => o.lagsMs).sort((a, b) => a - b);
    const during = on.reduce((s, o) => s + (o.deliveredDuringLoad ?? 0), 0);
    const all = on.reduce((s, o) => s + o.ok, 0);
    const totals = on.map((o) => Object.values(o.cpuPerDeliveredWriteMs ?? {}).reduce((sum, ms) => sum + ms, 0));
    log(
      `with a webhook on every write (on): ${rate('on').toFixed(1)} writes/s${has('off') ? ` (${(fewer('on') * 100).toFixed(1)} % fewer than off)` : ''}; ` +
        `${during} of ${all} deliveries arrived during the load; lag over ${lags.length} deliveries p50 ${percentile(lags, 0.5)} ms, p99 ${percentile(lags, 0.99)} ms; ` +
        `CPU per write until delivered, median ${median(totals).toFixed(2)} ms`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
