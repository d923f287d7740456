/**
 * Issue 26's acceptance on a system of its own (FerretDB, Redis and all eight processes): 1,000 writes of mixed types
 * under load give exactly 1,000 events in the feed, and at least one delivery of each to a subscribed endpoint, which
 * verifies every one with the `standardwebhooks` library, while
 * - the receiver is down for three attempts (it answers 503 to everything until some message was refused three times),
 * - the delivery worker is SIGKILLed mid-delivery (and started again),
 * - Redis is flushed (the delivery queue is rebuilt from the database),
 * - a subgraph is SIGKILLed between a write and its publish (EVENTS_FAULT_POINT) and started again.
 * The retry schedule is shrunk by settings so the whole run stays around a minute.
 */
import { join } from 'node:path';
import { Redis } from 'ioredis';
import {
  appEnvironment,
  loopbackTls,
  makeTempDir,
  ownSystemEnv,
  startApp,
  startFerretDb,
  startRedis,
  startSystem,
  waitForHttpOk,
  type AppName,
  type LoopbackTls,
  type RunningInfra,
  type RunningSystem,
} from '@platform/dev-stack';
import { http, startWebhookReceiver, type WebhookReceiver } from '@platform/testing';
import { issueTokens } from './test/accounts';
import { waitFor } from './test/events-support';

// About two minutes on a quiet 2-core machine; the margin is for a loaded one.
jest.setTimeout(600_000);

/** The issue's 1,000; a smaller count (EVENTS_ACCEPTANCE_WRITES) only to try the test on an overloaded machine. */
const WRITES = Number(process.env['EVENTS_ACCEPTANCE_WRITES'] ?? 1_000);
const MEMBERS = 4;
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
    ferret = await startFerretDb({
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
        WEBHOOK_CONCURRENCY: '8',
        // A shared 2-core machine under load: a slow answer must not turn a write into a 503 the count cannot place.
        SUBGRAPH_TIMEOUT_MS: '60000',
        WEBHOOK_SWEEP_INTERVAL_MS: '500',
        EVENTS_SWEEP_AFTER_MS: '1000',
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

  it('when 1,000 mixed writes run under load through four faults, then the feed holds exactly 1,000 events and each is delivered', async () => {
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
    const expected = new Map<string, number>();
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
    const doomed = await restart('items', { EVENTS_FAULT_POINT: 'crash-after-write:1' });
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
    // Exactly one event per write in the feed (the admin's: the audit trail of this whole system).
    const feed = await waitFor(
      async () => {
        const events: Array<{ id: string; type: string }> = [];
        let token: string | null = null;
        do {
          const page: {
            body: { data: Array<{ id: string; type: string }>; pagination: { nextPageToken: string | null } };
          } = await http.get(`${rest}/events?pageSize=100${token ? `&pageToken=${token}` : ''}`, {
            token: adminToken,
          });
          events.push(...page.body.data);
          token = page.body.pagination.nextPageToken;
        } while (token);
        return events.length >= WRITES ? events : undefined;
      },
      180_000,
      'every event in the feed',
    );
    mark('feed complete');
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // a late duplicate would show by now
    const settled = await http.get(`${rest}/events?pageSize=100`, { token: adminToken });
    expect(settled.body.data[0].id).toBe(feed[0]!.id);
    expect(feed).toHaveLength(WRITES);
    expect(new Set(feed.map((e) => e.id)).size).toBe(WRITES);
    const byType = new Map<string, number>();
    for (const event of feed) byType.set(event.type, (byType.get(event.type) ?? 0) + 1);
    expect(Object.fromEntries([...byType].sort())).toEqual(Object.fromEntries([...expected].sort()));

    // At least one verified 2xx delivery of each: the receiver answered 200 to every request but those it refused.
    const delivered = await waitFor(
      async () => {
        const answered = new Map<string, number>();
        for (const delivery of receiver.received) {
          const id = String(delivery.headers['webhook-id']);
          answered.set(id, (answered.get(id) ?? 0) + 1);
        }
        const ok = feed.filter((e) => (answered.get(e.id) ?? 0) > (refused.get(e.id) ?? 0));
        return ok.length === feed.length ? answered : undefined;
      },
      180_000,
      'a delivery of every event',
    );
    mark('all delivered');
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
