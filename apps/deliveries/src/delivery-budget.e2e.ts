/**
 * The owners' delivery budget as the worker's parts apply it, on FerretDB, the stack's Redis and users subgraph, and
 * one real receiver: 30 accounts subscribed to every event and a burst of writes; each owner gets at most its budget.
 */
import type { Db } from 'mongodb';
import { connectRedis, closeRedis, webhooksEnvironment } from '@platform/config';
import { buildEvent, newSigningSecret, SecretBox, type RecordedEvent } from '@platform/events';
import { createLogger } from '@platform/logging';
import { EventRelay } from '@platform/mongo';
import { webhookFanOut } from '@platform/metrics';
import {
  DeliveryQueue,
  DeliveryStore,
  EventFanOut,
  EventStore,
  WebhookStore,
  localTransport,
  ownerDeliveryBudget,
  type DeliveryDocument,
} from '@platform/webhooks';
import { http, startWebhookReceiver, suiteDatabases, testStack, unique, type WebhookReceiver } from '@platform/testing';
import { DeliveryProcessor } from './delivery-processor';
import { usersOwnerRights, type OwnerRights } from './owner-rights';
import { WebhookSender } from './sender';

const stack = testStack();
const logger = createLogger('delivery-budget-test', 'silent');
/** The budget as the processes read it from their environment: small, and a window longer than the test. */
const env = webhooksEnvironment.parse({
  WEBHOOK_OWNER_DELIVERY_BUDGET: '4',
  WEBHOOK_OWNER_BUDGET_WINDOW_SECONDS: '600',
});
const NOISY = 25;
const QUIET = 5;

describe("an owner's delivery budget", () => {
  const databases = suiteDatabases();
  let db: Db;
  let receiver: WebhookReceiver;
  let owners: OwnerRights;
  let queue: DeliveryQueue;
  let sender: WebhookSender;
  let relay: EventRelay | undefined;
  const redis = connectRedis(testStack().redisUrl, 1_000, logger, { purpose: 'budget test', fallback: 'none' });

  beforeAll(async () => {
    db = databases.fresh('delivery_budget_');
    receiver = await startWebhookReceiver();
    owners = usersOwnerRights({
      usersUrl: `${stack.urls['users']}/graphql`,
      jwtSecret: stack.jwtSecret,
      subgraphSecret: stack.subgraphSecret,
      ttlMs: 0,
    });
    queue = new DeliveryQueue({ url: stack.redisUrl }, `test-${unique()}`);
    sender = new WebhookSender({
      policy: { allowLoopback: true },
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
      timeoutMs: 2_000,
      maxResponseBytes: 1_024,
      httpsOnly: false,
    });
  });

  afterAll(async () => {
    await relay?.close();
    await queue?.queue.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await sender?.close();
    await owners?.close();
    await receiver?.close();
    await closeRedis(redis);
  });

  const register = async () => {
    const username = `budget${unique()}`;
    const made = await http.post(`${stack.restUrl}/users/`, {
      json: { username, email: `${username}@example.com`, password: `pw-${unique()}-9` },
    });
    expect(made.status).toBe(201);
    return made.body.id as number;
  };

  /** Runs every queued try, as the worker would, until none is waiting. */
  const drain = async (processor: DeliveryProcessor) => {
    for (;;) {
      const waiting = await queue.queue.getJobs(['waiting', 'prioritized']);
      if (waiting.length === 0) return;
      for (let i = 0; i < waiting.length; i += 16) {
        await Promise.all(
          waiting.slice(i, i + 16).map(async (job) => {
            await processor.process(job.data);
            await job.remove();
          }),
        );
      }
    }
  };

  it('when 30 accounts on `*` meet a burst of writes, then no owner is sent more than its budget, the rest is withheld in its log, and owners under it get everything', async () => {
    const events = new EventStore(db);
    const webhooks = new WebhookStore(db, new SecretBox(`key-${unique()}`));
    const deliveries = new DeliveryStore(db);
    const budget = ownerDeliveryBudget({
      redis,
      points: env.WEBHOOK_OWNER_DELIVERY_BUDGET,
      windowSeconds: env.WEBHOOK_OWNER_BUDGET_WINDOW_SECONDS,
      keyPrefix: `budget-test-${unique()}`,
    });
    const fanOut = new EventFanOut(events, webhooks, deliveries, queue, logger, budget);
    relay = new EventRelay({ db, logger, transport: localTransport(fanOut, events), sweepAfterMs: 10_000 });
    const processor = new DeliveryProcessor({
      logger,
      events,
      webhooks,
      deliveries,
      queue,
      fanOut,
      outbox: relay.outbox,
      sender,
      owners,
      schedule: [1],
      timeoutMs: 2_000,
    });
    const ids: number[] = [];
    for (let i = 0; i < NOISY + QUIET; i += 6) {
      ids.push(...(await Promise.all(Array.from({ length: Math.min(6, NOISY + QUIET - i) }, register))));
    }
    const noisy = ids.slice(0, NOISY);
    const quiet = ids.slice(NOISY);
    const secretOf = new Map<number, string>();
    const ownerOf = new Map<number, number>();
    const before = new Date(Date.now() - 1_000);
    const subscribe = async (ownerId: number, eventTypes: string[]) => {
      const secret = newSigningSecret();
      const made = await webhooks.create(
        (id) => ({
          _id: id,
          ownerId,
          url: receiver.url,
          eventTypes,
          scopes: ['items:read'],
          description: null,
          status: 'enabled',
          disabledReason: null,
          createdAt: before,
          updatedAt: before,
        }),
        secret,
      );
      secretOf.set(made._id, secret);
      ownerOf.set(made._id, ownerId);
    };
    for (const ownerId of noisy) {
      await subscribe(ownerId, ['*']);
      await subscribe(ownerId, ['*']);
    }
    for (const ownerId of quiet) await subscribe(ownerId, ['item.updated']);

    // 12 writes of one member, published in six pushes at once: 24 deliveries wanted by each noisy owner, 2 by each
    // quiet one.
    const writer = ids[0]!;
    const event = (n: number): RecordedEvent =>
      buildEvent(
        { principal: { kind: 'user', userId: writer }, requestId: 'budget-test' },
        n < 10 ? 'item.created' : 'item.updated',
        { type: 'item', id: n + 1 },
        { id: n + 1, name: `item ${n}` },
        { scope: 'items:read', ownerId: writer, private: false },
      );
    const burst = Array.from({ length: 12 }, (_, n) => event(n));
    const overBefore = (await webhookFanOut.get()).values.find((v) => v.labels['decision'] === 'over_budget')?.value ?? 0;
    await Promise.all([0, 2, 4, 6, 8, 10].map((i) => fanOut.record(burst.slice(i, i + 2))));
    // Made to be tried: the budget of each owner, whichever push its deliveries came in.
    const pendingOf = async (ownerId: number) => deliveries.deliveries.countDocuments({ ownerId, state: 'pending' });
    for (const ownerId of noisy) expect([ownerId, await pendingOf(ownerId)]).toEqual([ownerId, 4]);
    for (const ownerId of quiet) expect([ownerId, await pendingOf(ownerId)]).toEqual([ownerId, 2]);
    await drain(processor);

    // What the receiver got, by the owner whose webhook's secret signed it.
    const sentTo = new Map<number, number>();
    for (const delivery of receiver.received) {
      const webhookId = [...secretOf].find(([, secret]) => {
        try {
          receiver.verify(delivery, secret);
          return true;
        } catch {
          return false;
        }
      })?.[0];
      expect(webhookId).toBeDefined();
      const ownerId = ownerOf.get(webhookId!)!;
      sentTo.set(ownerId, (sentTo.get(ownerId) ?? 0) + 1);
    }
    for (const ownerId of noisy) expect([ownerId, sentTo.get(ownerId)]).toEqual([ownerId, 4]);
    for (const ownerId of quiet) expect([ownerId, sentTo.get(ownerId)]).toEqual([ownerId, 2]);
    expect(receiver.received).toHaveLength(NOISY * 4 + QUIET * 2);

    // Nothing vanished: every other delivery is withheld with its reason, in its owner's log (which shows no other
    // withheld delivery), and counted.
    const all = await deliveries.deliveries.find({}).toArray();
    expect(all).toHaveLength(NOISY * 24 + QUIET * 2);
    const withheld = all.filter((d) => d.state === 'withheld');
    expect(withheld).toHaveLength(NOISY * 20);
    for (const d of withheld) {
      expect(d.overBudget).toBe(true);
      expect(d.reason).toBe(
        "over its owner's delivery budget (4 per 600 s); not sent: redeliver it when the window has passed",
      );
    }
    const firstNoisyHook = [...ownerOf].find(([, owner]) => owner === noisy[0])![0];
    const log = await deliveries.ofWebhook(firstNoisyHook, { withheld: false, readable: null, before: null, first: 100 });
    expect(log).toHaveLength(12);
    expect(log.filter((d: DeliveryDocument) => d.state === 'withheld').length).toBeGreaterThan(0);
    const overAfter = (await webhookFanOut.get()).values.find((v) => v.labels['decision'] === 'over_budget')!.value;
    expect(overAfter - overBefore).toBe(NOISY * 20);

    // The owner sends one on again later: it is tried and arrives.
    const again = log.find((d: DeliveryDocument) => d.state === 'withheld')!;
    const redelivered = await fanOut.redeliver((await deliveries.viewById(again._id))!);
    expect([redelivered.state, redelivered.overBudget]).toEqual(['pending', false]);
    await drain(processor);
    expect(receiver.received).toHaveLength(NOISY * 4 + QUIET * 2 + 1);
    const [view] = await deliveries.views([(await deliveries.deliveries.findOne({ _id: again._id }))!]);
    expect(view!.state).toBe('delivered');
  }, 180_000);
});
