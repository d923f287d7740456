/**
 * A deleted account at the worker (FerretDB, the stack's Redis and users subgraph, a real receiver): a try claimed after
 * the deletion's mark sends nothing to the account's endpoints, nor its personal data to another member's.
 */
import type { Db } from 'mongodb';
import { buildEvent, newSigningSecret, SecretBox, type EventReadScope } from '@platform/events';
import { createLogger } from '@platform/logging';
import { deletedAccount, DeletionMarks, EventRelay } from '@platform/mongo';
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
const logger = createLogger('account-deletion-test', 'silent');

describe('a deleted account at the delivery worker', () => {
  const databases = suiteDatabases();
  let db: Db;
  let receiver: WebhookReceiver;
  let owners: OwnerRights;
  let queue: DeliveryQueue;
  let sender: WebhookSender;
  let relay: EventRelay;
  let events: EventStore;
  let webhooks: WebhookStore;
  let deliveries: DeliveryStore;
  let fanOut: EventFanOut;
  let processor: DeliveryProcessor;
  let marks: DeletionMarks;
  const prefix = `test-${unique()}`;

  beforeAll(async () => {
    db = databases.fresh('account_deletion_');
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
    events = new EventStore(db);
    webhooks = new WebhookStore(db, new SecretBox(`key-${unique()}`));
    deliveries = new DeliveryStore(db);
    fanOut = new EventFanOut(events, webhooks, deliveries, queue, logger);
    relay = new EventRelay({ db, logger, transport: localTransport(fanOut, events), sweepAfterMs: 10_000 });
    processor = new DeliveryProcessor({
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
    marks = new DeletionMarks(db);
  });

  afterAll(async () => {
    await relay?.close();
    await queue?.queue.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await sender?.close();
    await owners?.close();
    await receiver?.close();
  });

  /** A member of the stack (its account exists: the owner check at each try passes). */
  const member = async () => {
    const username = `gone${unique()}`;
    const made = await http.post(`${stack.restUrl}/users/`, {
      json: { username, email: `${username}@example.com`, password: `pw-${unique()}-9` },
    });
    expect(made.status).toBe(201);
    return { id: made.body.id as number, username, email: `${username}@example.com` };
  };

  const webhookOf = (ownerId: number, eventTypes: string[], scopes: EventReadScope[]) => {
    const secret = newSigningSecret();
    const now = new Date(Date.now() - 1_000);
    return webhooks
      .create(
        (id) => ({
          _id: id,
          ownerId,
          url: receiver.url,
          eventTypes,
          scopes,
          description: null,
          status: 'enabled',
          disabledReason: null,
          createdAt: now,
          updatedAt: now,
        }),
        secret,
      )
      .then((webhook) => ({ webhook, secret }));
  };

  /** The fan-out's queued first try of `eventId` (it carries the delivery and the event as they were made). */
  const firstTryOf = async (eventId: string): Promise<DeliveryJob> => {
    const waiting = await queue.queue.getJobs(['waiting']);
    const job = waiting.find((j) => j.data.deliveryId.startsWith(`${eventId}-`));
    expect(job?.data.first).toBeDefined();
    return job!.data;
  };

  it('when an owner is marked deleted after its try was queued, then the try sends nothing and is withheld', async () => {
    const owner = await member();
    const { webhook } = await webhookOf(owner.id, ['item.updated'], ['items:read']);
    const event = buildEvent(
      { principal: { kind: 'user', userId: owner.id }, requestId: 'deleted-owner' },
      'item.updated',
      { type: 'item', id: 1 },
      { id: 1, name: 'an item' },
      { scope: 'items:read', ownerId: owner.id, private: false },
    );
    await fanOut.record([event]);
    const job = await firstTryOf(event.id);
    // The account's deletion has reached the events service; its profile (what the owner check reads) goes last.
    await marks.mark(deletedAccount(owner.id));
    const before = receiver.received.length;
    await processor.process(job);
    expect(receiver.received.length).toBe(before);
    const [delivery] = await deliveries.views(await deliveries.deliveries.find({ webhookId: webhook._id }).toArray());
    expect(delivery?.state).toBe('withheld');
    expect(await deliveries.schedule.countDocuments({ webhookId: webhook._id })).toBe(0);
  });

  it('when an account is deleted, then its events reach another member’s endpoint without its personal data, a try queued before the deletion included', async () => {
    const reader = await member();
    const { secret } = await webhookOf(reader.id, ['user.updated', 'user.deleted'], ['users:read']);
    const gone = await member();
    const representation = { id: gone.id, username: gone.username, email: gone.email, full_name: 'Gone Person' };
    const audience = { scope: 'users:read' as const, ownerId: gone.id, private: false };
    const caller = { principal: { kind: 'user' as const, userId: gone.id }, requestId: 'deleted-account' };
    const updated = buildEvent(caller, 'user.updated', { type: 'user', id: gone.id }, representation, audience);
    await fanOut.record([updated]);
    const queuedBefore = await firstTryOf(updated.id);

    await marks.mark(deletedAccount(gone.id));
    // The deletion's own event arrives after the cascade (the profile goes last).
    const deleted = buildEvent(caller, 'user.deleted', { type: 'user', id: gone.id }, representation, audience);
    await fanOut.record([deleted]);
    expect((await events.findById(deleted.id))?.data).toEqual({ id: gone.id });
    const queuedAfter = await firstTryOf(deleted.id);

    const from = receiver.received.length;
    await processor.process(queuedBefore);
    await processor.process(queuedAfter);
    const sent = receiver.received.slice(from).map((d) => receiver.verify(d, secret) as { id: string; data: unknown });
    expect(sent.map((b) => b.id).sort()).toEqual([updated.id, deleted.id].sort());
    for (const body of sent) expect(body.data).toEqual({ id: gone.id });
    expect(receiver.received.slice(from).map((d) => d.body).join('')).not.toContain(gone.email);
  });

  it('when a webhook is created for an account already marked deleted, then the creation is undone and refused', async () => {
    const owner = await member();
    await marks.mark(deletedAccount(owner.id));
    await expect(webhookOf(owner.id, ['*'], ['items:read'])).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await webhooks.list({ ownerId: owner.id })).toEqual([]);
  });
});
