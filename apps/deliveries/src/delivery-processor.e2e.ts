/**
 * A first attempt as the worker makes it, against FerretDB through the wire recorder, BullMQ on the stack's Redis and
 * the stack's users subgraph: the fan-out's job carries the delivery and its event, so the try reads neither from the
 * database (on FerretDB v1 each is a pass over a collection that grows with every write), reads after its claim only
 * the owner's deletion mark (a primary-key read), and writes only its claim,
 * its outcome and the delivery's state; the receiver verifies it with `standardwebhooks`. A job without them (a retry,
 * the sweep's, a redelivery) reads both, as before, and the rights of the owner are checked at every try either way.
 */
import type { Db } from 'mongodb';
import { Writable } from 'node:stream';
import pino from 'pino';
import { buildEvent, newSigningSecret, SecretBox, type SealingKeys } from '@platform/events';
import { createLogger, type Logger } from '@platform/logging';
import { webhookDeliveries } from '@platform/metrics';
import { EventRelay } from '@platform/mongo';
import {
  DeliveryQueue,
  DeliveryStore,
  EventFanOut,
  EventStore,
  WebhookStore,
  deliveryIdOf,
  localTransport,
  type DeliveryJob,
} from '@platform/webhooks';
import {
  http,
  startWebhookReceiver,
  suiteDatabases,
  testStack,
  unique,
  type WebhookReceiver,
} from '@platform/testing';
import { DeliveryProcessor, UNREADABLE_SECRET, type ProcessorDeps } from './delivery-processor';
import { NOT_PUBLIC, type Resolver } from './egress';
import { usersOwnerRights, type OwnerRights } from './owner-rights';
import { WebhookSender } from './sender';

const stack = testStack();

async function waitUntil(done: () => boolean, timeoutMs = 5_000): Promise<void> {
  for (const until = Date.now() + timeoutMs; !done();) {
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
  const system = async (
    url: string,
    schedule: readonly number[] = [1],
    keys: { sealing?: string; worker?: SealingKeys; logger?: Logger } = {},
    deps: Partial<ProcessorDeps> = {},
  ) => {
    const events = new EventStore(db);
    const sealing = new WebhookStore(db, new SecretBox(keys.sealing ?? `key-${unique()}`));
    // The worker's own ring (by default the key that sealed): what a worker of another configuration opens with.
    const webhooks = keys.worker ? new WebhookStore(db, new SecretBox(keys.worker)) : sealing;
    const deliveries = new DeliveryStore(db);
    const fanOut = new EventFanOut(events, webhooks, deliveries, queue, logger);
    const made = new EventRelay({
      db,
      logger,
      transport: localTransport(fanOut, events),
      sweepAfterMs: 10_000,
    });
    relays.push(made);
    const processor = new DeliveryProcessor({
      logger: keys.logger ?? logger,
      events,
      webhooks,
      deliveries,
      queue,
      fanOut,
      outbox: made.outbox,
      sender,
      owners,
      schedule,
      timeoutMs: 2_000,
      ...deps,
    });
    const username = `hooked${unique()}`;
    const owner = await http.post(`${stack.restUrl}/users/`, {
      json: { username, email: `${username}@example.com`, password: `pw-${unique()}-9` },
    });
    expect(owner.status).toBe(201);
    const ownerId = owner.body.id as number;
    const secret = newSigningSecret();
    const now = new Date(Date.now() - 1_000);
    const webhook = await sealing.create(
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
    // The webhook, and after the claim its owner's deletion mark (a primary-key read).
    expect(first.filter((c) => c.startsWith('find '))).toEqual(['find webhooks', 'find deletion_marks']);
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
      'find deletion_marks',
      'find events',
      'find webhook_deliveries',
      'find webhook_schedule',
      'find webhooks',
    ]);

    expect(receiver.received).toHaveLength(2);
    const bodies = receiver.received.map(
      (delivery) => receiver.verify(delivery, secret) as { id: string; data: { name: string } },
    );
    expect(bodies.map((b) => [b.id, b.data.name])).toEqual([
      [carried.id, 'item 1'],
      [plain.id, 'item 2'],
    ]);
    const states = await deliveries.views(
      await deliveries.deliveries.find({ webhookId: webhook._id }).sort({ _id: 1 }).toArray(),
    );
    expect(states.map((d) => [d.state, d.attempts])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
    ]);

    // A fan-out published again (its first push's answer was lost) schedules a delivered delivery anew: the next try's
    // claim says it was made, and nothing is sent again.
    await fanOut.record([carried]);
    const again = (await queue.queue.getJobs(['waiting'])).find((job) =>
      job.data.deliveryId.startsWith(carried.id),
    );
    await processor.process(again?.data ?? { deliveryId: jobOf(carried.id).data.deliveryId });
    expect(receiver.received).toHaveLength(2);
    expect(await deliveries.schedule.countDocuments({ webhookId: webhook._id })).toBe(0);
  });

  it('when the worker opens the secret with an accepted key, then it delivers; when no key of its ring opens it, then the delivery fails at once, logged, nothing claimed or sent', async () => {
    const endpoint = await startWebhookReceiver();
    try {
      const old = `key-${unique()}`;
      const current = `key-${unique()}`;
      // Sealed under `old`, opened by a worker whose ring seals with `current` and still accepts `old`.
      const rotated = await system(endpoint.url, [1], {
        sealing: old,
        worker: { current, accepted: [current, old] },
      });
      const opened = rotated.event(6);
      await rotated.fanOut.record([opened]);
      const openedId = deliveryIdOf(opened.id, rotated.webhook._id);
      await rotated.processor.process({ deliveryId: openedId });
      expect(endpoint.received).toHaveLength(1);
      const [delivered] = await rotated.deliveries.views([
        (await rotated.deliveries.deliveries.findOne({ _id: openedId }))!,
      ]);
      expect(delivered!.state).toBe('delivered');
      expect(endpoint.verify(endpoint.received[0]!, rotated.secret)).toMatchObject({ id: opened.id });

      // A worker whose ring holds neither key: the delivery fails with its reason, no try is claimed (no `interrupted`
      // later, no retry), nothing is sent, and the error logged names the webhook and the delivery, never a secret or key.
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      });
      const other = `key-${unique()}`;
      const lost = await system(endpoint.url, [1], {
        sealing: old,
        worker: { current: other, accepted: [other] },
        logger: createLogger('delivery-processor-test', 'info', sink),
      });
      const unreadable = lost.event(7);
      await lost.fanOut.record([unreadable]);
      const deliveryId = deliveryIdOf(unreadable.id, lost.webhook._id);
      await lost.processor.process({ deliveryId });
      await lost.processor.process({ deliveryId }); // the job again (the sweep's, a stalled one's): settled, nothing more
      expect(endpoint.received).toHaveLength(1);
      const [view] = await lost.deliveries.views([
        (await lost.deliveries.deliveries.findOne({ _id: deliveryId }))!,
      ]);
      expect({ state: view!.state, reason: view!.reason, attempts: view!.attemptLog }).toEqual({
        state: 'failed',
        reason: UNREADABLE_SECRET,
        attempts: [],
      });
      expect(await lost.deliveries.due(new Date(Date.now() + 3_600_000), 10_000)).not.toContainEqual(
        expect.objectContaining({ deliveryId }),
      );
      expect((await lost.webhooks.findById(lost.webhook._id))?.status).toBe('enabled');
      const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(logged).toEqual([
        expect.objectContaining({ level: 50, webhookId: lost.webhook._id, deliveryId }),
      ]);
      for (const value of [
        lost.secret,
        old,
        other,
        ...(await lost.webhooks.findById(lost.webhook._id))!.secrets.map((s) => s.sealed),
      ]) {
        expect(lines.join('')).not.toContain(value);
      }
    } finally {
      await endpoint.close();
    }
  });

  it('when the owner redelivers while a try is on its way, then its outcome does not swallow the redelivery; one asked before the try was claimed is that try', async () => {
    const endpoint = await startWebhookReceiver();
    try {
      const { deliveries, fanOut, processor, webhooks, webhook, event } = await system(endpoint.url, []);
      const redeliver = async (id: string) =>
        (await fanOut.redeliver((await deliveries.viewById(id))!)).attempts + 1;
      const job = async (id: string) => (await queue.queue.getJob(id))!;
      const firstJob = async (eventId: string) =>
        (await queue.queue.getJobs(['waiting'])).find((queued) => queued.data.deliveryId.startsWith(eventId))!
          .data;
      const stateOf = async (id: string) => {
        const [view] = await deliveries.views([(await deliveries.deliveries.findOne({ _id: id }))!]);
        return [view!.state, view!.attemptLog.map((a) => a.statusCode)];
      };
      const holding = () => {
        let release = () => undefined as void;
        endpoint.hold(new Promise<void>((resolve) => (release = resolve)));
        return () => release();
      };

      // Try 1 is claimed and sent (the endpoint holds its answer) when the owner asks for another.
      const onItsWay = event(3);
      await fanOut.record([onItsWay]);
      const first = await firstJob(onItsWay.id);
      let release = holding();
      let trying = processor.process(first);
      await waitUntil(() => endpoint.received.length === 1);
      expect(await redeliver(first.deliveryId)).toBe(2);
      release();
      await trying; // delivered: it leaves the redelivery's schedule
      expect((await deliveries.findById(first.deliveryId))?.state).toBe('pending');
      await processor.process((await job(`${first.deliveryId}.2`)).data); // the redelivery's job
      expect(endpoint.received).toHaveLength(2);
      expect(await stateOf(first.deliveryId)).toEqual(['delivered', [200, 200]]);

      // The last try of the schedule (no retries here) is on its way and fails after the owner redelivered: the
      // redelivery stands, and the endpoint is not disabled: its try is the endpoint's next chance.
      const failing = event(4);
      await fanOut.record([failing]);
      const last = await firstJob(failing.id);
      release = holding();
      endpoint.respond((delivery) => (endpoint.received.indexOf(delivery) === 2 ? 500 : 200));
      trying = processor.process(last);
      await waitUntil(() => endpoint.received.length === 3);
      expect(await redeliver(last.deliveryId)).toBe(2);
      release();
      await trying;
      expect(endpoint.received).toHaveLength(3);
      expect((await deliveries.findById(last.deliveryId))?.state).toBe('pending');
      expect((await webhooks.findById(webhook._id))?.status).toBe('enabled');
      await processor.process((await job(`${last.deliveryId}.2`)).data);
      expect(endpoint.received).toHaveLength(4);
      expect(await stateOf(last.deliveryId)).toEqual(['delivered', [500, 200]]);

      // Asked before try 1 was claimed: the job queued for try 1 is the redelivery's (the same try, sent after the
      // request); it leaves the redelivery's schedule, and the sweep's job for that try settles it from the log.
      const beforeClaim = event(5);
      await fanOut.record([beforeClaim]);
      const carried = await firstJob(beforeClaim.id);
      expect(await redeliver(carried.deliveryId)).toBe(1);
      await processor.process(carried);
      expect(endpoint.received).toHaveLength(5);
      expect(await deliveries.due(new Date(Date.now() + 1_000), 10_000)).toContainEqual({
        deliveryId: carried.deliveryId,
        attempt: 1,
      });
      await processor.process({ deliveryId: carried.deliveryId });
      expect(endpoint.received).toHaveLength(5);
      expect(await stateOf(carried.deliveryId)).toEqual(['delivered', [200]]);
      expect(
        await deliveries.schedule.countDocuments({
          _id: { $in: [first.deliveryId, last.deliveryId, carried.deliveryId] },
        }),
      ).toBe(0);
    } finally {
      await endpoint.close();
    }
  });

  it('when the owner redelivers a delivery waiting out a retry, then its next try is sent now, not after the backoff', async () => {
    const endpoint = await startWebhookReceiver();
    try {
      const { deliveries, fanOut, processor, event } = await system(endpoint.url, [3_600]);
      const refused = event(6);
      await fanOut.record([refused]);
      const first = (await queue.queue.getJobs(['waiting'])).find((queued) =>
        queued.data.deliveryId.startsWith(refused.id),
      )!;
      endpoint.respond(() => 503);
      await processor.process(first.data);
      endpoint.respond(() => 200);
      const retry = `${first.data.deliveryId}.2`;
      expect(await (await queue.queue.getJob(retry))!.isDelayed()).toBe(true); // an hour's backoff

      const view = await fanOut.redeliver((await deliveries.viewById(first.data.deliveryId))!);
      expect([view.state, view.attempts]).toEqual(['pending', 1]);
      const now = (await queue.queue.getJob(retry))!;
      expect(await now.isDelayed()).toBe(false);
      expect(await now.isWaiting()).toBe(true);
      await processor.process(now.data);
      expect(endpoint.received.map((r) => r.headers['webhook-id'])).toEqual([refused.id, refused.id]);
      expect((await deliveries.findById(first.data.deliveryId))?.state).toBe('delivered');
    } finally {
      await endpoint.close();
    }
  });
  it('when egress refuses a host or its name does not resolve, then the owner reads one wording and only the worker log says what it resolved to', async () => {
    // Internal DNS as a member would probe it: names mapping to loopback, private, an IPv4-compatible metadata address,
    // and a name that does not exist.
    const answers: Record<string, string> = {
      localhost: '127.0.0.1',
      'db.internal': '10.0.0.5',
      'meta.internal': '::a9fe:a9fe',
    };
    const resolver: Resolver = async (hostname) => {
      const address = answers[hostname];
      if (!address)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
          code: 'ENOTFOUND',
          syscall: 'getaddrinfo',
          hostname,
        });
      return [{ address, family: address.includes(':') ? 6 : 4 }];
    };
    const production = new WebhookSender({
      policy: { allowLoopback: false },
      resolver,
      timeoutMs: 2_000,
      maxResponseBytes: 1_024,
      httpsOnly: true,
    });
    const lines: Array<Record<string, unknown>> = [];
    const workerLog = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const received = receiver.received.length;
    try {
      const errors: Array<string | null> = [];
      for (const [host, told] of [
        ['localhost', '127.0.0.1 (loopback) is not a public address'],
        ['db.internal', '10.0.0.5 (private) is not a public address'],
        ['meta.internal', '::a9fe:a9fe (ipv4Compatible) is not a public address'],
        ['missing.internal', 'getaddrinfo ENOTFOUND missing.internal'],
      ] as const) {
        const { deliveries, fanOut, processor, webhook, event } = await system(
          `https://${host}:${receiver.port}/b`,
          [3_600],
          {},
          { sender: production, logger: workerLog },
        );
        const happened = event(10);
        await fanOut.record([happened]);
        const deliveryId = deliveryIdOf(happened.id, webhook._id);
        await processor.process({ deliveryId });
        const [view] = await deliveries.views([(await deliveries.deliveries.findOne({ _id: deliveryId }))!]);
        expect(view!.attemptLog).toHaveLength(1);
        // The owner's log: neither the address, nor its range, nor whether the name exists.
        expect(view!.attemptLog[0]!.error).toBe(
          "refused: the endpoint's host does not resolve to a public address",
        );
        errors.push(view!.attemptLog[0]!.error);
        // The operator's log keeps the detail, bound to the delivery.
        expect(lines).toContainEqual(
          expect.objectContaining({
            delivery: deliveryId,
            attempt: 1,
            detail: expect.stringContaining(told),
          }),
        );
      }
      expect(errors).toEqual([NOT_PUBLIC, NOT_PUBLIC, NOT_PUBLIC, NOT_PUBLIC]);
      // The metric's outcomes stay the fixed few: no address, no name.
      const outcomes = (await webhookDeliveries.get()).values.map((v) => String(v.labels['outcome']));
      expect(outcomes).toContain('refused');
      for (const outcome of outcomes)
        expect([
          'delivered',
          'failed',
          'exhausted',
          'withheld',
          'refused',
          'interrupted',
          'unreadable_secret',
        ]).toContain(outcome);
      expect(receiver.received).toHaveLength(received);
    } finally {
      await production.close();
    }
  });
});
