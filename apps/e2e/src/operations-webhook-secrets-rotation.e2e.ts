/**
 * Existing webhooks deliver across a rotation of JWT_SECRET (development: the sealing key derives from it) and of
 * WEBHOOK_SECRETS_KEY (publish, switch, retire), on a system of its own while writes go on: every acknowledged write's
 * event reaches every webhook, each verified with the signing secret it was answered (the old one too in an overlap).
 */
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { keyRing } from '@platform/auth';
import { resolveWebhookSecretsKey } from '@platform/config';
import {
  SUBGRAPH_NAMES,
  appEnvironment,
  generatedSecret,
  makeTempDir,
  startApp,
  startRedis,
  startSystem,
  waitForHttpOk,
  type AppName,
  type RunningInfra,
  type RunningSystem,
} from '@platform/dev-stack';
import { SecretBox, type SealingKeys } from '@platform/events';
import {
  http,
  startSuiteFerretDb,
  startWebhookReceiver,
  unique,
  type ReceivedDelivery,
  type WebhookReceiver,
} from '@platform/testing';
import { issueTokens, registerAccount } from './test/accounts';
import { waitFor } from './test/events-support';

jest.setTimeout(600_000);

/** How many acknowledged writes the deliveries may lag behind before the writers wait for them. */
const AHEAD = 8;

const JWT_A = generatedSecret();
const JWT_B = generatedSecret();
const KEY = generatedSecret();
/** The sealing key `npm start` derives from JWT_SECRET=B (what the switch step names as accepted). */
const DERIVED_B = resolveWebhookSecretsKey({ NODE_ENV: 'development' }, keyRing(JWT_B)).current;

describe('webhooks across a rotation of JWT_SECRET and of WEBHOOK_SECRETS_KEY, under load', () => {
  const dir = makeTempDir('webhook-secrets-rotation-');
  let ferret: RunningInfra;
  let redis: RunningInfra;
  let system: RunningSystem;
  let mongo: MongoClient;
  const receivers: WebhookReceiver[] = [];
  let launched = 0;

  /** Stops `name` and starts it again on its port with `env` as its own settings. */
  const restart = async (name: AppName, env: Record<string, string>) => {
    await system.processes.get(name)?.stop('SIGTERM', 15_000);
    await launch(name, env);
  };
  /** Starts `name` on its port with the system's settings and `env` over them; resolves once it is ready. */
  const launch = async (name: AppName, env: Record<string, string>) => {
    const proc = startApp(name, {
      rootDir: process.cwd(),
      env: { ...appEnvironment(name, system.ports, system.env), ...env },
      logDir: dir.path,
      logName: `${name}-${++launched}`,
    });
    system.processes.set(name, proc);
    await waitForHttpOk(
      `${system.urls[name]}/readyz`,
      90_000,
      () => proc.child.exitCode === null && proc.child.signalCode === null,
    );
  };

  /** Whether every webhook's live secrets open with `keys` alone (nothing is left for a key outside them). */
  const sealedUnder = async (keys: SealingKeys): Promise<boolean> => {
    const box = new SecretBox(keys);
    const webhooks = await mongo.db('api_events').collection('webhooks').find({}).toArray();
    return webhooks.every((webhook) =>
      (webhook['secrets'] as Array<{ sealed: string; expiresAt: Date | null }>)
        .filter((s) => s.expiresAt === null || s.expiresAt > new Date())
        .every((s) => {
          try {
            box.open(s.sealed, `webhook:${String(webhook['_id'])}`);
            return true;
          } catch {
            return false;
          }
        }),
    );
  };

  beforeAll(async () => {
    ferret = await startSuiteFerretDb({
      dataDir: join(dir.path, 'ferretdb'),
      logFile: join(dir.path, 'ferretdb.log'),
    });
    redis = await startRedis({ dataDir: join(dir.path, 'redis') });
    // As `npm start` runs it: development, no WEBHOOK_SECRETS_KEY (derived from JWT_SECRET), loopback endpoints.
    system = await startSystem({
      rootDir: process.cwd(),
      mongoUrl: ferret.url,
      redisUrl: redis.url,
      jwtSecret: JWT_A,
      freePorts: true,
      logDir: dir.path,
      env: {
        LOG_LEVEL: 'warn',
        DATA_DIR: join(dir.path, 'data'),
        METRICS_PORT: 'off',
        RATE_LIMIT_POINTS: '1000000',
        LOGIN_RATE_LIMIT_POINTS: '1000000',
        WEBHOOK_ALLOW_LOOPBACK: 'true',
        WEBHOOK_EGRESS: 'loopback',
        WEBHOOK_RETRY_SCHEDULE: '0.5,1,1,2,2,3',
        WEBHOOK_TIMEOUT_MS: '3000',
        WEBHOOK_SWEEP_INTERVAL_MS: '2000',
        EVENTS_SWEEP_AFTER_MS: '4000',
        SUBGRAPH_TIMEOUT_MS: '60000',
      },
    });
    mongo = await MongoClient.connect(ferret.url);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await mongo?.close();
    await system?.stop();
    await redis?.process.stop();
    await ferret?.process.stop();
    if (process.env['KEEP_TEST_LOGS'] !== '1') dir.remove();
  }, 60_000);

  it('when the system restarts with a new JWT_SECRET and then rotates WEBHOOK_SECRETS_KEY while items are written, then every acknowledged write is delivered to every webhook, verified with its secret', async () => {
    const rest = system.urls.rest;
    const t0 = Date.now();
    const mark = (what: string) =>
      process.stdout.write(
        `[webhook secrets rotation] ${what} at ${((Date.now() - t0) / 1000).toFixed(1)}s\n`,
      );
    // Two members, each with a webhook on item.created (items are readable by members: each gets every item's event).
    const members = await Promise.all(
      ['rota', 'rotb'].map(async (prefix) => {
        const account = await registerAccount(rest, prefix);
        const token = (await issueTokens(rest, account.username, account.password)).access_token;
        const receiver = await startWebhookReceiver();
        receivers.push(receiver);
        const hook = await http.post(`${rest}/webhooks`, {
          token,
          json: { url: receiver.url, event_types: ['item.created'] },
        });
        expect(hook.status).toBe(201);
        return {
          account,
          token,
          receiver,
          id: hook.body.id as number,
          secrets: [hook.body.secret as string],
        };
      }),
    );

    // The load: a writer per member, each write retried with its key until it is acknowledged (restarts refuse some).
    const acknowledged = new Set<number>();
    /** Writes begun after the owner's rotation was answered: their deliveries are signed with the new secret too. */
    const afterRotation = new Set<number>();
    let rotated = false;
    const refusals: Record<string, number> = {};
    let writing = true;
    const writers = members.map(async (member) => {
      while (writing) {
        const key = `rotation-${unique()}`;
        const begunAfterRotation = rotated;
        for (let tries = 0; ; tries += 1) {
          if (tries > 1_500) throw new Error('a write was never acknowledged');
          const answer = await http
            .post(`${rest}/items/`, {
              token: member.token,
              headers: { 'idempotency-key': key },
              json: { name: key, price: 1 },
            })
            .catch((error: unknown) => ({ status: 0, text: String(error), body: {} as { id?: number } }));
          if (answer.status === 201) {
            acknowledged.add(answer.body.id as number);
            if (begunAfterRotation) afterRotation.add(answer.body.id as number);
            break;
          }
          refusals[answer.status] = (refusals[answer.status] ?? 0) + 1;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        // A steady load the worker keeps pace with: no member runs more than a few writes ahead of the deliveries.
        await waitFor(
          async () => (receivers.every((r) => r.received.length >= acknowledged.size - AHEAD) ? true : undefined),
          120_000,
          'the deliveries to catch up with the writes',
        );
      }
    });
    const acknowledgedAfter = async (count: number) => {
      const target = acknowledged.size + count;
      await waitFor(
        async () => (acknowledged.size >= target ? true : undefined),
        120_000,
        `${count} more writes`,
      );
    };

    try {
      await acknowledgedAfter(10);
      mark(`${acknowledged.size} writes; restarting every process with JWT_SECRET=B, JWT_SECRET_ACCEPTED=A`);
      // 1. JWT_SECRET rotated, the whole system restarted at once (as `npm start` is).
      const jwtSwitch = { JWT_SECRET: JWT_B, JWT_SECRET_ACCEPTED: JWT_A };
      for (const group of [['rest'], ['gateway'], ['deliveries'], [...SUBGRAPH_NAMES]] as AppName[][]) {
        await Promise.all(group.map((name) => system.processes.get(name)?.stop('SIGTERM', 15_000)));
      }
      for (const group of [[...SUBGRAPH_NAMES], ['deliveries'], ['gateway'], ['rest']] as AppName[][]) {
        await Promise.all(group.map((name) => launch(name, jwtSwitch)));
      }
      // The events service seals anew under the key derived from B what the key derived from A sealed.
      await waitFor(
        async () => ((await sealedUnder(DERIVED_B)) ? true : undefined),
        60_000,
        'the re-seal under B',
      );
      await acknowledgedAfter(10);
      // An owner rotates its secret with an overlap: both sign meanwhile, the old one sealed before the JWT rotation.
      const rotation = await http.post(`${rest}/webhooks/${members[1]!.id}/rotate-secret`, {
        token: members[1]!.token,
        json: { overlap_seconds: 3_600 },
      });
      expect(rotation.status).toBe(200);
      members[1]!.secrets.unshift(rotation.body.secret as string);
      rotated = true;
      mark(`${acknowledged.size} writes; WEBHOOK_SECRETS_KEY: publish`);

      // 2. WEBHOOK_SECRETS_KEY, each step restarting the worker and then the events service. The events service and
      // the worker drop JWT_SECRET_ACCEPTED here too: what the key derived from A sealed is sealed anew by now.
      const steps: Array<[string, Record<string, string>, SealingKeys]> = [
        ['publish', { JWT_SECRET: JWT_B, WEBHOOK_SECRETS_KEY_ACCEPTED: KEY }, DERIVED_B],
        [
          'switch',
          { JWT_SECRET: JWT_B, WEBHOOK_SECRETS_KEY: KEY, WEBHOOK_SECRETS_KEY_ACCEPTED: DERIVED_B },
          KEY,
        ],
        ['retire', { JWT_SECRET: JWT_B, WEBHOOK_SECRETS_KEY: KEY }, KEY],
      ];
      for (const [step, env, sealing] of steps) {
        await restart('deliveries', env);
        await restart('events', env);
        await waitFor(
          async () => ((await sealedUnder(sealing)) ? true : undefined),
          60_000,
          `every secret sealed under the key of ${step}`,
        );
        await acknowledgedAfter(10);
        mark(`${acknowledged.size} writes; ${step} done`);
      }
    } finally {
      writing = false;
      await Promise.all(writers);
    }
    mark(
      `${acknowledged.size} writes acknowledged (refused meanwhile: ${JSON.stringify(refusals)}); waiting for the deliveries`,
    );

    // Every acknowledged write's event, at every webhook (at least once; receivers dedupe on webhook-id).
    const itemOf = (delivery: ReceivedDelivery) =>
      (JSON.parse(delivery.body) as { type: string; resource: { id: number } }).resource.id;
    for (const member of members) {
      const missing = await waitFor(
        async () => {
          const seen = new Set(member.receiver.received.map(itemOf));
          const left = [...acknowledged].filter((id) => !seen.has(id));
          return left.length === 0 ? left : undefined;
        },
        240_000,
        `every write delivered to webhook ${member.id}`,
      ).catch(() => [...acknowledged].filter((id) => !new Set(member.receiver.received.map(itemOf)).has(id)));
      expect({ webhook: member.id, missing }).toEqual({ webhook: member.id, missing: [] });
      const ids = member.receiver.received.map((d) => String(d.headers['webhook-id']));
      mark(`webhook ${member.id}: ${ids.length} deliveries, ${new Set(ids).size} webhook-ids`);
      for (const delivery of member.receiver.received) {
        const [current, previous] = member.secrets;
        // Every one verifies with the secret answered at creation (sealed before the JWT rotation; within its overlap
        // once the owner rotated); what was written after the rotation with the new secret as well.
        expect(member.receiver.verify(delivery, previous ?? current!)).toMatchObject({
          type: 'item.created',
        });
        if (previous && afterRotation.has(itemOf(delivery))) {
          expect(member.receiver.verify(delivery, current!)).toMatchObject({ type: 'item.created' });
        }
      }
    }
    expect(afterRotation.size).toBeGreaterThan(0);
    // No delivery failed or was interrupted on the way (read with a token of the current JWT key: A is retired there).
    for (const member of members) {
      const token = (await issueTokens(rest, member.account.username, member.account.password)).access_token;
      const states = new Map<string, number>();
      let next: string | undefined = `${rest}/webhooks/${member.id}/deliveries?pageSize=100`;
      while (next) {
        const page = await http.get(next, { token });
        expect(page.status).toBe(200);
        for (const delivery of page.body.data as Array<{
          status: string;
          attempts: Array<{ error: string | null }>;
        }>) {
          states.set(delivery.status, (states.get(delivery.status) ?? 0) + 1);
          for (const attempt of delivery.attempts)
            expect(attempt.error ?? '').not.toMatch(/interrupted|secret/);
        }
        const after = page.body.pagination?.nextPageToken as string | undefined;
        next = after ? `${rest}/webhooks/${member.id}/deliveries?pageSize=100&pageToken=${after}` : undefined;
      }
      expect([...states.keys()]).toEqual(['delivered']);
    }
  });
});
