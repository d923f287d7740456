/**
 * A first attempt as the worker makes it, against FerretDB through the wire recorder, BullMQ on the stack's Redis and
 * the stack's users subgraph: the fan-out's job carries the delivery and its event, so the try reads neither from the
 * database (on FerretDB v1 each is a pass over a collection that grows with every write) and writes only its claim,
 * its outcome and the delivery's state; the receiver verifies it with `standardwebhooks`. A job without them (a retry,
 * the sweep's, a redelivery) reads both, as before, and the rights of the owner are checked at every try either way.
 */
import type { Db } from 'mongodb';
import { buildEvent, newSigningSecret, SecretBox } from '@platform/events';
import { createLogger } from '@platform/logging';
import { EventRelay } from '@platform/mongo';
import {
  DeliveryQueue,
  DeliveryStore,
  EventFanOut,
  EventStore,
  WebhookStore,
  localTransport,
  type DeliveryJob,
} from '@platform/webhooks';
import { http, startWebhookReceiver, suiteDatabases, testStack, unique, type WebhookReceiver } from '@platform/testing';
import { DeliveryProcessor } from './delivery-processor';
import { usersOwnerRights, type OwnerRights } from './owner-rights';
import { WebhookSender } from './sender';

const stack = testStack();

async function waitUntil(done: () => boolean, timeoutMs = 5_000): Promise<void> {
  for (const until = Date.now() + timeoutMs; !done(); ) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const logger = createLogger('delivery-processor-test', 'silent');

describe('a delivery attempt', () => {
  const databases = suiteDatabases({ recordWire: true });
  let db: Db;
  let receiver: WebhookReceiver;
  let owners: OwnerRights;
  let queue: DeliveryQueue;
  let sender: WebhookSender;
  const relays: EventRelay[] = [];
  const prefix = `test-${unique()}`;

  beforeAll(async () => {
    db = databases.fresh('first_attempt_');
    receiver = await startWebhookReceiver();
    owners = usersOwnerRights({
      usersUrl: `${stack.urls['users']}/graphql`,
      jwtSecret: stack.jwtSecret,
      subgraphSecret: stack.subgraphSecret,
      ttlMs: 0,
    });
    queue = new DeliveryQueue({ url: stack.redisUrl }, prefix);
    sender = new WebhookSender({
      policy: { allowLoopback: true },
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
      timeoutMs: 2_000,
      maxResponseBytes: 1_024,
      httpsOnly: false,
    });
  });

  afterAll(async () => {
    await Promise.all(relays.map((r) => r.close()));
    await queue?.queue.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await sender?.close();
    await owners?.close();
    await receiver?.close();
  });

  /** The worker's parts on the suite's database, a member as the owner of a webhook to `url`, and events of theirs. */
  const system = async (url: string) => {
    const events = new EventStore(db);
    const webhooks = new WebhookStore(db, new SecretBox(`key-${unique()}`));
    const deliveries = new DeliveryStore(db);
    const fanOut = new EventFanOut(events, webhooks, deliveries, queue, logger);
    const made = new EventRelay({ db, logger, transport: localTransport(fanOut, events), sweepAfterMs: 10_000 });
    relays.push(made);
    const processor = new DeliveryProcessor({
      logger,
      events,
      webhooks,
      deliveries,
      queue,
      fanOut,
      outbox: made.outbox,
      sender,
      owners,
      schedule: [1],
      timeoutMs: 2_000,
    });
    const username = `hooked${unique()}`;
    const owner = await http.post(`${stack.restUrl}/users/`, {
      json: { username, email: `${username}@example.com`, password: `pw-${unique()}-9` },
    });
    expect(owner.status).toBe(201);
    const ownerId = owner.body.id as number;
    const secret = newSigningSecret();
    const now = new Date(Date.now() - 1_000);
    const webhook = await webhooks.create(
      (id) => ({
        _id: id,
        ownerId,
        url,
        eventTypes: ['item.updated'],
        scopes: ['items:read'],
        description: null,
        status: 'enabled',
        disabledReason: null,
        createdAt: now,
        updatedAt: now,
      }),
      secret,
    );
    const event = (id: number) =>
      buildEvent(
        { principal: { kind: 'user', userId: ownerId }, requestId: 'first-attempt-test' },
        'item.updated',
        { type: 'item', id },
        { id, name: `item ${id}` },
        { scope: 'items:read', ownerId, private: false },
      );
    return { events, webhooks, deliveries, fanOut, processor, webhook, secret, event };
  };

  it('when the fan-out queues a first attempt, then the try reads neither the delivery nor the event, and a job without them reads both', async () => {
    const { deliveries, fanOut, processor, webhook, secret, event } = await system(receiver.url);
    const carried = event(1);
    const plain = event(2);
    await fanOut.record([carried, plain]);
    const waiting = await queue.queue.getJobs(['waiting']);
    const jobOf = (eventId: string) => waiting.find((job) => job.data.deliveryId.startsWith(eventId))!;
    expect(jobOf(carried.id).data.first?.event?._id).toBe(carried.id);

    const attempt = async (data: DeliveryJob) => {
      const from = databases.commands().length;
      await processor.process(data);
      return databases
        .commands()
        .slice(from)
        .map((c) => `${c.name} ${String(c.body[c.name])}`);
    };
    const first = await attempt(jobOf(carried.id).data);
    expect(first.filter((c) => c.startsWith('find '))).toEqual(['find webhooks']);
    // Delivered: the claim, the outcome and the schedule's end; the delivery itself is not written.
    expect(first.filter((c) => !c.startsWith('find '))).toEqual([
      'insert webhook_attempts',
      'insert webhook_attempts',
      'delete webhook_schedule',
    ]);
    // Without what the fan-out carried (as a retry, the sweep or a redelivery queue it), the delivery (with its
    // schedule) and the event are read.
    const read = await attempt({ deliveryId: jobOf(plain.id).data.deliveryId });
    expect(read.filter((c) => c.startsWith('find ')).sort()).toEqual([
      'find events',
      'find webhook_deliveries',
      'find webhook_schedule',
      'find webhooks',
    ]);

    expect(receiver.received).toHaveLength(2);
    const bodies = receiver.received.map((delivery) => receiver.verify(delivery, secret) as { id: string; data: { name: string } });
    expect(bodies.map((b) => [b.id, b.data.name])).toEqual([
      [carried.id, 'item 1'],
      [plain.id, 'item 2'],
    ]);
    const states = await deliveries.views(await deliveries.deliveries.find({ webhookId: webhook._id }).sort({ _id: 1 }).toArray());
    expect(states.map((d) => [d.state, d.attempts])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
    ]);

    // A fan-out published again (its first push's answer was lost) schedules a delivered delivery anew: the next try's
    // claim says it was made, and nothing is sent again.
    await fanOut.record([carried]);
    const again = (await queue.queue.getJobs(['waiting'])).find((job) => job.data.deliveryId.startsWith(carried.id));
    await processor.process(again?.data ?? { deliveryId: jobOf(carried.id).data.deliveryId });
    expect(receiver.received).toHaveLength(2);
    expect(await deliveries.schedule.countDocuments({ webhookId: webhook._id })).toBe(0);
  });

  it('when the owner redelivers while a try is on its way, then its outcome does not swallow the redelivery; one asked before the try was claimed is that try', async () => {
    const endpoint = await startWebhookReceiver();
    try {
      const { deliveries, fanOut, processor, event } = await system(endpoint.url);
      // As the events service's redelivery: the next try after every one in the log, due now.
      const redeliver = async (id: string) => {
        const view = (await deliveries.viewById(id))!;
        const attempts = Math.max(view.attempts, ...view.attemptLog.map((a) => a.n));
        await deliveries.set(view, { state: 'pending', attempts, nextAttemptAt: new Date(), reason: null });
        return attempts + 1;
      };
      const jobFor = async (eventId: string) =>
        (await queue.queue.getJobs(['waiting'])).find((job) => job.data.deliveryId.startsWith(eventId))!.data;
      const stateOf = async (id: string) => {
        const [view] = await deliveries.views([(await deliveries.deliveries.findOne({ _id: id }))!]);
        return [view!.state, view!.attemptLog.map((a) => a.statusCode)];
      };

      // Try 1 is claimed and sent (the endpoint holds its answer) when the owner asks for another.
      const onItsWay = event(3);
      await fanOut.record([onItsWay]);
      const first = await jobFor(onItsWay.id);
      let release = () => undefined as void;
      endpoint.hold(new Promise<void>((resolve) => (release = resolve)));
      const trying = processor.process(first);
      await waitUntil(() => endpoint.received.length === 1);
      expect(await redeliver(first.deliveryId)).toBe(2);
      release();
      await trying; // delivered: it leaves the redelivery's schedule
      expect((await deliveries.findById(first.deliveryId))?.state).toBe('pending');
      await processor.process({ deliveryId: first.deliveryId }); // the redelivery's job
      expect(endpoint.received).toHaveLength(2);
      expect(await stateOf(first.deliveryId)).toEqual(['delivered', [200, 200]]);

      // Asked before try 1 was claimed: try 1 is sent after the request, and is the one the redelivery asked for.
      const beforeClaim = event(4);
      await fanOut.record([beforeClaim]);
      const carried = await jobFor(beforeClaim.id);
      expect(await redeliver(carried.deliveryId)).toBe(1);
      await processor.process(carried);
      await processor.process({ deliveryId: carried.deliveryId }); // the redelivery's job (or the sweep's) for try 1
      expect(endpoint.received).toHaveLength(3);
      expect(await stateOf(carried.deliveryId)).toEqual(['delivered', [200]]);
      expect(await deliveries.schedule.countDocuments({ _id: { $in: [first.deliveryId, carried.deliveryId] } })).toBe(0);
    } finally {
      await endpoint.close();
    }
  });
});
