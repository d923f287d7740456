/**
 * The events service's part of an account's deletion, against FerretDB and the stack's Redis: the account's webhooks go
 * with their deliveries, attempt log, schedule and queued tries, and its stored events keep no personal data.
 */
import type { Db } from 'mongodb';
import type { Caller } from '@platform/auth';
import { buildEvent, newSigningSecret, SecretBox } from '@platform/events';
import { createLogger } from '@platform/logging';
import { DeliveryQueue, DeliveryStore, EventFanOut, EventStore, WebhookStore } from '@platform/webhooks';
import { suiteDatabases, testInfra, unique } from '@platform/testing';
import { AccountDeletion } from '../src/domain/account-deletion';

const stack = testInfra();
const logger = createLogger('events-account-deletion-test', 'silent');
const service: Caller = {
  principal: { kind: 'service', userId: null, username: 'users', role: 'member', scopes: ['internal'] },
  authError: null,
};

describe("the events service's purge of a deleted account", () => {
  const databases = suiteDatabases();
  let db: Db;
  let queue: DeliveryQueue;

  beforeAll(() => {
    db = databases.fresh('events_purge_');
    queue = new DeliveryQueue({ url: stack.redisUrl }, `test-${unique()}`);
  });

  afterAll(async () => {
    await queue?.queue.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
  });

  it('when an account is purged, then its webhooks, their deliveries, schedule and queued retries are gone, its events keep only its id, and a webhook made after for it is refused', async () => {
    const events = new EventStore(db);
    const webhooks = new WebhookStore(db, new SecretBox(`key-${unique()}`));
    const deliveries = new DeliveryStore(db);
    const fanOut = new EventFanOut(events, webhooks, deliveries, queue, logger);
    const purge = new AccountDeletion(events, webhooks, deliveries, queue, { waitMs: 2_000, maxAttemptMs: 61_000 });
    const ownerId = 1_000 + Math.floor(Math.random() * 1_000_000);
    const make = () => {
      const now = new Date(Date.now() - 1_000);
      return webhooks.create(
        (id) => ({
          _id: id,
          ownerId,
          url: 'https://hooks.example.com/in',
          eventTypes: ['*'],
          scopes: ['users:read', 'items:read'],
          description: null,
          status: 'enabled',
          disabledReason: null,
          createdAt: now,
          updatedAt: now,
        }),
        newSigningSecret(),
      );
    };
    const webhook = await make();
    const caller = { principal: { kind: 'user' as const, userId: ownerId }, requestId: 'purge-test' };
    const personal = { id: ownerId, username: `p${ownerId}`, email: `p${ownerId}@example.com`, full_name: 'P' };
    const created = buildEvent(caller, 'user.created', { type: 'user', id: ownerId }, personal, {
      scope: 'users:read',
      ownerId,
      private: false,
    });
    const item = buildEvent(caller, 'item.created', { type: 'item', id: 7 }, { id: 7, name: 'kept' }, {
      scope: 'items:read',
      ownerId,
      private: false,
    });
    await fanOut.record([created, item]);
    const made = await deliveries.deliveries.find({ webhookId: webhook._id }).toArray();
    expect(made).toHaveLength(2);
    // One of them failed once: its retry waits in the queue for its backoff.
    const retried = made[0]!;
    await deliveries.claimAttempt(retried, 1);
    await deliveries.finishAttempt(retried, 1, { statusCode: 500, durationMs: 5, error: null });
    await deliveries.set((await deliveries.findById(retried._id))!, { attempts: 1, nextAttemptAt: new Date(Date.now() + 3_600_000) });
    await queue.enqueue(retried._id, 2, 3_600_000);
    expect(await queue.queue.getJob(`${retried._id}.2`)).toBeDefined();
    expect(await queue.queue.getJob(`${made[1]!._id}.1`)).toBeDefined();

    expect(await purge.purge(service, String(ownerId))).toBe(true);

    expect(await webhooks.list({ ownerId })).toEqual([]);
    expect(await deliveries.deliveries.countDocuments({ webhookId: webhook._id })).toBe(0);
    expect(await deliveries.attempts.countDocuments({ webhookId: webhook._id })).toBe(0);
    expect(await deliveries.schedule.countDocuments({ webhookId: webhook._id })).toBe(0);
    expect(await queue.queue.getJob(`${retried._id}.2`)).toBeUndefined();
    // The other one's first try, queued by the fan-out and not run yet, went too.
    expect(await queue.queue.getJob(`${made[1]!._id}.1`)).toBeUndefined();
    const stored = await events.findById(created.id);
    expect(stored).toMatchObject({ _id: created.id, type: 'user.created', resource: { type: 'user', id: ownerId } });
    expect(stored?.data).toEqual({ id: ownerId });
    expect((await events.findById(item.id))?.data).toEqual({ id: 7, name: 'kept' });

    await expect(make()).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await webhooks.list({ ownerId })).toEqual([]);
    // Idempotent: a retried deletion finds nothing more to do.
    expect(await purge.purge(service, String(ownerId))).toBe(true);
  });

  it('when a try to the account’s webhook was claimed and has no outcome, then the purge answers SERVICE_UNAVAILABLE and keeps the webhook; once the try ended, a retry completes it', async () => {
    const events = new EventStore(db);
    const webhooks = new WebhookStore(db, new SecretBox(`key-${unique()}`));
    const deliveries = new DeliveryStore(db);
    const fanOut = new EventFanOut(events, webhooks, deliveries, queue, logger);
    const purge = new AccountDeletion(events, webhooks, deliveries, queue, { waitMs: 300, maxAttemptMs: 61_000 });
    const ownerId = 1_000 + Math.floor(Math.random() * 1_000_000);
    const now = new Date(Date.now() - 1_000);
    const webhook = await webhooks.create(
      (id) => ({
        _id: id,
        ownerId,
        url: 'https://hooks.example.com/in',
        eventTypes: ['item.created'],
        scopes: ['items:read'],
        description: null,
        status: 'enabled',
        disabledReason: null,
        createdAt: now,
        updatedAt: now,
      }),
      newSigningSecret(),
    );
    const item = buildEvent(
      { principal: { kind: 'user', userId: ownerId }, requestId: 'purge-wait' },
      'item.created',
      { type: 'item', id: 8 },
      { id: 8, name: 'on its way' },
      { scope: 'items:read', ownerId, private: false },
    );
    await fanOut.record([item]);
    const [delivery] = await deliveries.deliveries.find({ webhookId: webhook._id }).toArray();
    // A worker claimed try 1 before the deletion's mark and is sending it.
    expect(await deliveries.claimAttempt(delivery!, 1)).toBe(true);

    await expect(purge.purge(service, String(ownerId))).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect((await webhooks.list({ ownerId })).map((w) => w._id)).toEqual([webhook._id]);

    await deliveries.finishAttempt(delivery!, 1, { statusCode: 200, durationMs: 5, error: null });
    expect(await purge.purge(service, String(ownerId))).toBe(true);
    expect(await webhooks.list({ ownerId })).toEqual([]);
    expect(await deliveries.deliveries.countDocuments({ webhookId: webhook._id })).toBe(0);
  });
});
