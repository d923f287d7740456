/**
 * Issue 26's acceptance on a system of its own (FerretDB, Redis and all eight processes): N writes of mixed types from
 * 8 concurrent writers give exactly N events in the feed (each type counted), and at least one delivery of each to a
 * subscribed endpoint, which verifies every one with the `standardwebhooks` library, while
 * - the receiver is down for three attempts (it answers 503 to everything until some message was refused three times),
 * - the delivery worker is SIGKILLed mid-delivery (and started again),
 * - Redis is flushed (the delivery queue is rebuilt from the database),
 * - a subgraph is SIGKILLed between a write and its publish (EVENTS_FAULT_POINT) and started again.
 * The retry schedule is shrunk by settings. Where the time goes (measured on the loaded 2-core machine): the writes
 * run at about 10 a second, the worker delivers about 5 events a second (an attempt is several FerretDB round trips and
 * a read of the owner's account; more worker concurrency does not raise it), so the deliveries set the pace; polling
 * the whole feed every 200 ms while waiting was a collection pass per page and is gone (the receiver is polled, in
 * memory, and the feed read once); the sweeps run every 2 s instead of 14 passes a second.
 */
import { join } from 'node:path';
import { Redis } from 'ioredis';
import {
  appEnvironment,
  loopbackTls,
  makeTempDir,
  ownSystemEnv,
  startApp,
  startRedis,
  startSystem,
  waitForHttpOk,
  type AppName,
  type LoopbackTls,
  type RunningInfra,
  type RunningSystem,
} from '@platform/dev-stack';
import { http, startSuiteFerretDb, startWebhookReceiver, type WebhookReceiver } from '@platform/testing';
import { issueTokens } from './test/accounts';
import { waitFor } from './test/events-support';

// About 3 minutes on a loaded 2-core machine (400 writes); the margin is for a worse one or for 1,000.
jest.setTimeout(600_000);

/**
 * 400 writes from 8 writers at once: every fault lands mid-load and every event is checked one by one, as with the
 * issue's 1,000 (EVENTS_ACCEPTANCE_WRITES=1000 runs that count; about 6 minutes on a loaded 2-core machine, where the
 * worker delivers about 5 events a second on FerretDB: the delivery of 1,000 alone takes over 3 minutes there).
 */
const WRITES = Number(process.env['EVENTS_ACCEPTANCE_WRITES'] ?? 400);
/** Writers working at once (each a member doing its own sequence of writes): the load the 1,000 writes come as. */
const MEMBERS = 8;
const ADMIN = { username: 'acceptance-admin', password: 'acceptance-admin-password-1' };

describe('issue 26 acceptance: exactly one event per write, each delivered, through crashes', () => {
  const dir = makeTempDir('events-acceptance-');
  let ferret: RunningInfra;
  let redis: RunningInfra;
  let system: RunningSystem;
  let receiver: WebhookReceiver;
  let tls: LoopbackTls;
  let rest: string;

  /** Starts `name` again on its port with its settings (and `extra`), replacing the process the system stops. */
  const restart = async (name: AppName, extra: Record<string, string> = {}) => {
    await system.processes.get(name)?.stop('SIGTERM'); // a no-op for one already killed
    const proc = startApp(name, {
      rootDir: process.cwd(),
      env: { ...appEnvironment(name, system.ports, system.env), ...extra },
      logDir: dir.path,
      logName: `${name}-${Date.now()}`,
    });
    system.processes.set(name, proc);
    await waitForHttpOk(
      `${system.urls[name]}/readyz`,
      90_000,
      () => proc.child.exitCode === null && proc.child.signalCode === null,
    );
    return proc;
  };

  beforeAll(async () => {
    ferret = await startSuiteFerretDb({
      dataDir: join(dir.path, 'ferretdb'),
      logFile: join(dir.path, 'ferretdb.log'),
    });
    redis = await startRedis({ dataDir: join(dir.path, 'redis') });
    // Production delivers to https endpoints only: the receiver presents a certificate the processes trust.
    tls = loopbackTls(dir.path);
    system = await startSystem({
      rootDir: process.cwd(),
      mongoUrl: ferret.url,
      redisUrl: redis.url,
      jwtSecret: 'acceptance-jwt-secret-0123456789abcdefghijklmnop',
      freePorts: true,
      logDir: dir.path,
      env: {
        ...ownSystemEnv(join(dir.path, 'data'), ADMIN),
        METRICS_PORT: 'off',
        WEBHOOK_ALLOW_LOOPBACK: 'true',
        NODE_EXTRA_CA_CERTS: tls.certFile,
        WEBHOOK_RETRY_SCHEDULE: '0.3,0.3,0.3,0.5,0.5,1,1,2,2',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_CONCURRENCY: '16',
        // A shared 2-core machine under load: a slow answer must not turn a write into a 503 the count cannot place.
        SUBGRAPH_TIMEOUT_MS: '60000',
        // Each sweep is a pass over a collection on FerretDB (every process's outbox, the deliveries): often enough to
        // recover within seconds, rarely enough not to be the load (every 2 s, instead of 14 passes a second).
        WEBHOOK_SWEEP_INTERVAL_MS: '2000',
        EVENTS_SWEEP_AFTER_MS: '4000',
        // One owner (the admin) receives every write here: no budget may withhold any of them.
        WEBHOOK_OWNER_DELIVERY_BUDGET: '1000000',
      },
    });
    rest = system.urls.rest;
    receiver = await startWebhookReceiver({ tls });
  }, 180_000);

  afterAll(async () => {
    await receiver?.close();
    await system?.stop();
    await redis?.process.stop();
    await ferret?.process.stop();
    if (process.env['KEEP_TEST_LOGS'] !== '1') dir.remove();
  }, 60_000);

  it('when the writes run concurrently under load through four faults, then the feed holds exactly one event per write and each is delivered', async () => {
    const adminToken = (await issueTokens(rest, ADMIN.username, ADMIN.password)).access_token;
    const hook = await http.post(`${rest}/webhooks`, {
      token: adminToken,
      json: { url: receiver.url, event_types: ['*'] },
    });
    expect(hook.status).toBe(201);
    const secret = hook.body.secret as string;
    // The receiver goes down (503 to everything) at 40 % of the writes and comes back once a message was refused 3 times.
    let down = false;
    const refused = new Map<string, number>();
    receiver.respond((delivery) => {
      if (!down) return 200;
      const id = String(delivery.headers['webhook-id']);
      const n = (refused.get(id) ?? 0) + 1;
      refused.set(id, n);
      if (n >= 3) down = false;
      return 503;
    });

    let writes = 0;
    // The webhook's own creation is an event of the feed too (and delivered to it).
    const expected = new Map<string, number>([['webhook.created', 1]]);
    const t0 = Date.now();
    const mark = (what: string) =>
      process.stdout.write(`[acceptance] ${what} at ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
    const wrote = (type: string) => {
      writes += 1;
      if (writes % 50 === 0) mark(`${writes} writes`);
      expected.set(type, (expected.get(type) ?? 0) + 1);
    };
    const members: Array<{ token: string; id: number }> = [];
    for (let m = 0; m < MEMBERS; m += 1) {
      const username = `acc${m}${Date.now().toString(36)}`;
      const password = `pw-acceptance-${m}-1`;
      const registered = await http.post(`${rest}/users/`, {
        json: { username, email: `${username}@example.com`, password },
      });
      expect(registered.status).toBe(201);
      wrote('user.created');
      members.push({
        id: registered.body.id as number,
        token: (await issueTokens(rest, username, password)).access_token,
      });
    }

    // The faults, each once, at points of the load.
    const faults: Array<{ at: number; run: () => Promise<void> }> = [
      {
        at: Math.round(WRITES * 0.4),
        run: async () => {
          down = true;
        },
      },
      {
        at: Math.round(WRITES * 0.25),
        run: async () => {
          await system.processes.get('deliveries')!.stop('SIGKILL');
          await new Promise((resolve) => setTimeout(resolve, 500));
          await restart('deliveries');
        },
      },
      {
        at: Math.round(WRITES * 0.6),
        run: async () => {
          const client = new Redis(redis.url);
          await client.flushall();
          client.disconnect();
        },
      },
    ];
    const budget = WRITES - writes - 1; // the last write is the one the subgraph is killed in
    let issued = 0;
    const failures: string[] = [];
    const write = async (
      type: string,
      call: () => Promise<{ status: number; text: string; body: { id?: number } }>,
    ): Promise<number | undefined> => {
      const answer = await call();
      if (answer.status >= 300) {
        failures.push(`${type}: ${answer.status} ${answer.text}`);
        return undefined;
      }
      wrote(type);
      const due = faults.find((f) => f.at === writes);
      if (due) await due.run();
      return answer.body?.id;
    };
    const worker = async (member: { token: string; id: number }) => {
      const token = member.token;
      for (let step = 0; ; step += 1) {
        if (issued >= budget) return;
        issued += 1;
        switch (step % 7) {
          case 0:
            (member as { item?: number }).item = await write('item.created', () =>
              http.post(`${rest}/items/`, { token, json: { name: `load-${step}`, price: step } }),
            );
            break;
          case 1:
            await write('item.updated', () =>
              http.patch(`${rest}/items/${(member as { item?: number }).item}`, {
                token,
                json: { price: step + 0.5 },
              }),
            );
            break;
          case 2:
            (member as { post?: number }).post = await write('post.created', () =>
              http.post(`${rest}/posts`, { token, json: { title: `load ${step}`, body: 'b' } }),
            );
            break;
          case 3:
            await write('comment.created', () =>
              http.post(`${rest}/posts/${(member as { post?: number }).post}/comments`, {
                token,
                json: { body: 'c' },
              }),
            );
            break;
          case 4:
            await write('post.liked', () =>
              http.post(`${rest}/posts/${(member as { post?: number }).post}/like`, { token }),
            );
            break;
          case 5:
            await write('post.updated', () =>
              http.patch(`${rest}/posts/${(member as { post?: number }).post}`, {
                token,
                json: { body: `b${step}` },
              }),
            );
            break;
          default:
            await write('item.deleted', () =>
              http.delete(`${rest}/items/${(member as { item?: number }).item}`, { token }),
            );
        }
      }
    };
    await Promise.all(members.map(worker));
    expect(failures).toEqual([]);
    expect(writes).toBe(WRITES - 1);

    // The items subgraph dies between its next write and that write's publish, then starts again.
    // Fault points are honoured outside production only (a production process never kills itself on a setting):
    // this one process runs in development mode, the rest of the system as production does.
    const doomed = await restart('items', {
      NODE_ENV: 'development',
      EVENTS_FAULT_POINT: 'crash-after-write:1',
    });
    const name = `killed-between-write-and-publish-${Date.now()}`;
    const killed = await http.post(`${rest}/items/`, { token: members[0]!.token, json: { name, price: 1 } });
    expect(killed.status).toBeGreaterThanOrEqual(500);
    await doomed.exited;
    expect(doomed.child.signalCode).toBe('SIGKILL');
    await restart('items');
    const found = await http.get(`${rest}/items/?name=${name}`, { token: members[0]!.token });
    expect(
      found.body.map?.((i: { name: string }) => i.name) ??
        found.body.data?.map((i: { name: string }) => i.name),
    ).toEqual([name]);
    wrote('item.created');

    mark('all writes');
    // At least one verified 2xx delivery of each event (read from the receiver, in memory: polling it costs the system
    // nothing): the receiver answered 200 to every request but those it refused. A delivery exists only for a stored
    // event, so once WRITES messages are delivered the feed is complete too, and is read once.
    const answeredOk = () => {
      const answered = new Map<string, number>();
      for (const delivery of receiver.received) {
        const id = String(delivery.headers['webhook-id']);
        answered.set(id, (answered.get(id) ?? 0) + 1);
      }
      return { answered, ok: [...answered].filter(([id, n]) => n > (refused.get(id) ?? 0)).length };
    };
    const delivered = await waitFor(
      async () => {
        const { answered, ok } = answeredOk();
        return ok >= WRITES + 1 ? answered : undefined; // the writes and the webhook's own creation
      },
      240_000,
      'a delivery of every event',
    );
    mark('all delivered');
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // a late duplicate event would show by now
    // Exactly one event per write in the feed (the admin's: the audit trail of this whole system).
    const feed: Array<{ id: string; type: string }> = [];
    let pageToken: string | null = null;
    do {
      const page: {
        body: { data: Array<{ id: string; type: string }>; pagination: { nextPageToken: string | null } };
      } = await http.get(`${rest}/events?pageSize=100${pageToken ? `&pageToken=${pageToken}` : ''}`, {
        token: adminToken,
      });
      feed.push(...page.body.data);
      pageToken = page.body.pagination.nextPageToken;
    } while (pageToken);
    mark('feed read');
    expect(feed).toHaveLength(WRITES + 1);
    expect(new Set(feed.map((e) => e.id)).size).toBe(WRITES + 1);
    const byType = new Map<string, number>();
    for (const event of feed) byType.set(event.type, (byType.get(event.type) ?? 0) + 1);
    expect(Object.fromEntries([...byType].sort())).toEqual(Object.fromEntries([...expected].sort()));
    // Every event of the feed delivered (and nothing delivered that is not in it).
    const okIds = [...delivered].filter(([id, n]) => n > (refused.get(id) ?? 0)).map(([id]) => id);
    expect(okIds.sort()).toEqual(feed.map((e) => e.id).sort());
    expect(delivered.size).toBeGreaterThanOrEqual(WRITES);
    // The outage lasted three attempts of a message, which was delivered on a later one.
    const thrice = [...refused].filter(([, n]) => n >= 3).map(([id]) => id);
    expect(thrice.length).toBeGreaterThan(0);
    for (const id of thrice) expect(delivered.get(id)).toBeGreaterThanOrEqual(4);
    const verified = new Set<string>();
    for (const delivery of receiver.received) {
      const body = receiver.verify(delivery, secret) as { id: string };
      expect(body.id).toBe(delivery.headers['webhook-id']);
      verified.add(body.id);
    }
    for (const event of feed) expect(verified.has(event.id)).toBe(true);
  });
});
