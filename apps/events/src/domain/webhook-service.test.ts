/**
 * The webhook rules of the events service on FerretDB, with its own outbox and relay as the subgraph runs them: every
 * write records one event with its true actor and no secret, and only the owner re-points or re-keys a webhook.
 */
import type { Db } from 'mongodb';
import type { Caller, Principal } from '@platform/auth';
import { AppError } from '@platform/errors';
import { canReadEvent, SecretBox } from '@platform/events';
import { createLogger } from '@platform/logging';
import { EventRelay } from '@platform/mongo';
import { closeRedis, connectRedis } from '@platform/config';
import { buildEvent } from '@platform/events';
import { suiteDatabases, testInfra, unique } from '@platform/testing';
import {
  DeliveryStore,
  EventFanOut,
  EventStore,
  localTransport,
  ownerDeliveryBudget,
  WebhookStore,
  type StoredEvent,
} from '@platform/webhooks';
import { WebhookService } from './webhook-service';

const logger = createLogger('webhook-service-test', 'silent');
const READ = ['users:read', 'items:read', 'posts:read'];
const WRITE = [...READ, 'users:write', 'items:write', 'posts:write'];

const caller = (userId: number, role: Principal['role']): Caller & { requestId: string } => ({
  principal: { kind: 'user', userId, username: `u${userId}`, role, scopes: WRITE },
  authError: null,
  requestId: `req-${unique()}`,
});

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  for (const until = Date.now() + timeoutMs; ; ) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('webhook writes', () => {
  const databases = suiteDatabases();
  let db: Db;
  let relay: EventRelay;
  let service: WebhookService;
  let events: EventStore;

  beforeAll(() => {
    db = databases.fresh('webhook_writes_');
    events = new EventStore(db);
    const webhooks = new WebhookStore(db, new SecretBox(`key-${unique()}`));
    const deliveries = new DeliveryStore(db);
    const fanOut = new EventFanOut(events, webhooks, deliveries, undefined, logger);
    relay = new EventRelay({ db, logger, transport: localTransport(fanOut, events), sweepAfterMs: 10_000 });
    service = new WebhookService(
      webhooks,
      deliveries,
      fanOut,
      { production: false, allowLoopback: false, overlapSeconds: 60, maxPerOwner: 20 },
      relay.outbox,
    );
  });

  afterAll(() => relay?.close());

  const eventsOf = (webhookId: number) =>
    db
      .collection<StoredEvent>('events')
      .find({ 'resource.type': 'webhook', 'resource.id': webhookId })
      .sort({ _id: 1 })
      .toArray();

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => (error instanceof AppError ? [error.code, error.message] : error),
    );

  it('when its owner and an admin write a webhook, then each write records one event with its actor, private to the owner, without a secret', async () => {
    const owner = caller(910_000 + Math.floor(Math.random() * 1_000), 'member');
    const admin = caller(920_000 + Math.floor(Math.random() * 1_000), 'admin');
    const { webhook, secret } = await service.create(owner, {
      url: 'https://example.com/a',
      eventTypes: ['*'],
    });
    await service.update(owner, webhook._id, { url: 'https://example.com/b' });
    await service.update(admin, webhook._id, { enabled: false });
    const rotated = await service.rotate(owner, webhook._id, 30);
    await service.delete(admin, webhook._id);
    // A later write of another webhook, published after these: none of theirs may still be on its way then.
    const sentinel = await service.create(owner, { url: 'https://example.com/s', eventTypes: ['item.created'] });
    await waitFor(async () => ((await eventsOf(sentinel.webhook._id)).length === 1 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 100));

    const recorded = await eventsOf(webhook._id);
    expect(recorded.map((e) => [e.type, e.actor])).toEqual([
      ['webhook.created', { type: 'user', id: owner.principal!.userId }],
      ['webhook.updated', { type: 'user', id: owner.principal!.userId }],
      ['webhook.updated', { type: 'user', id: admin.principal!.userId }],
      ['webhook.secret_rotated', { type: 'user', id: owner.principal!.userId }],
      ['webhook.deleted', { type: 'user', id: admin.principal!.userId }],
    ]);
    expect(recorded.map((e) => [e.data['url'], e.data['status']])).toEqual([
      ['https://example.com/a', 'enabled'],
      ['https://example.com/b', 'enabled'],
      ['https://example.com/b', 'disabled'],
      ['https://example.com/b', 'disabled'],
      ['https://example.com/b', 'disabled'],
    ]);
    expect(recorded[3]!.data['previous_secret_expires_at']).toEqual(expect.any(String));
    expect(recorded.map((e) => e.requestId)).toEqual([
      owner.requestId,
      owner.requestId,
      admin.requestId,
      owner.requestId,
      admin.requestId,
    ]);
    const text = JSON.stringify(recorded);
    for (const s of [secret, rotated.secret]) expect(text).not.toContain(s.replace(/^whsec_/, ''));
    expect(text).not.toMatch(/whsec_|sealed|secrets/);
    // Private: the owner's and the admins' (the audit trail), no other member's; never an API key's.
    const other = { kind: 'user' as const, userId: 1, role: 'member', scopes: READ };
    for (const event of recorded) {
      expect(event.audience).toEqual({ scope: 'users:read', ownerId: owner.principal!.userId, private: true });
      expect(canReadEvent(owner.principal!, event.audience)).toBe(true);
      expect(canReadEvent(admin.principal!, event.audience)).toBe(true);
      expect(canReadEvent(other, event.audience)).toBe(false);
    }
  });

  it("when an admin re-points or re-keys a member's webhook, then it is refused and changes nothing; the owner may", async () => {
    const owner = caller(930_000 + Math.floor(Math.random() * 1_000), 'member');
    const admin = caller(940_000 + Math.floor(Math.random() * 1_000), 'admin');
    const { webhook } = await service.create(owner, { url: 'https://example.com/own', eventTypes: ['*'] });

    expect(await refusal(service.update(admin, webhook._id, { url: 'https://admin.example.com/x' }))).toEqual([
      'FORBIDDEN',
      "Not enough permissions: only the webhook's owner may change its url",
    ]);
    expect(await refusal(service.rotate(admin, webhook._id, 0))).toEqual([
      'FORBIDDEN',
      "Not enough permissions: only the webhook's owner may change its signing secret",
    ]);
    const kept = (await service.get(owner, webhook._id))!;
    expect([kept.url, kept.version ?? 0, kept.secrets.length]).toEqual(['https://example.com/own', 0, 1]);
    // What an admin may do: change the types, disable it (and the same url is no change of it).
    const retyped = await service.update(admin, webhook._id, {
      url: 'https://example.com/own',
      eventTypes: ['item.created'],
      enabled: false,
    });
    expect([retyped.url, retyped.eventTypes, retyped.status]).toEqual([
      'https://example.com/own',
      ['item.created'],
      'disabled',
    ]);
    // An admin's own webhook is the admin's to re-point and re-key.
    const own = await service.create(admin, { url: 'https://admin.example.com/a', eventTypes: ['*'] });
    expect((await service.update(admin, own.webhook._id, { url: 'https://admin.example.com/b' })).url).toBe(
      'https://admin.example.com/b',
    );
    await service.rotate(admin, own.webhook._id, 0);
    expect((await service.update(owner, webhook._id, { url: 'https://example.com/moved' })).url).toBe(
      'https://example.com/moved',
    );
    const types = await waitFor(async () => {
      const found = (await eventsOf(webhook._id)).map((e) => e.type);
      return found.length >= 3 ? found : undefined;
    });
    expect(types).toEqual(['webhook.created', 'webhook.updated', 'webhook.updated']);
  });

  it("when a delivery is withheld over its owner's budget, then the owner's log shows it and the owner may redeliver it", async () => {
    const redis = connectRedis(testInfra().redisUrl, 1_000, logger, { purpose: 'budget test', fallback: 'none' });
    try {
      const budget = ownerDeliveryBudget({ redis, points: 1, windowSeconds: 600, keyPrefix: `budget-${unique()}` });
      const store = new WebhookStore(db, new SecretBox(`key-${unique()}`));
      const deliveries = new DeliveryStore(db);
      const fanOut = new EventFanOut(events, store, deliveries, undefined, logger, budget);
      const budgeted = new WebhookService(store, deliveries, fanOut, {
        production: false,
        allowLoopback: false,
        overlapSeconds: 60,
        maxPerOwner: 20,
      });
      const owner = caller(950_000 + Math.floor(Math.random() * 1_000), 'member');
      const { webhook } = await budgeted.create(owner, { url: 'https://example.com/b', eventTypes: ['item.created'] });
      const item = (id: number) =>
        buildEvent(owner, 'item.created', { type: 'item', id }, { id }, {
          scope: 'items:read',
          ownerId: owner.principal!.userId,
          private: false,
        });
      await fanOut.record([item(1), item(2)]);
      const log = await budgeted.deliveriesOf(owner, webhook._id, {});
      expect(log.nodes.map((d) => [d.state, d.reason])).toEqual([
        ['withheld', "over its owner's delivery budget (1 per 600 s); not sent: redeliver it when the window has passed"],
        ['pending', null],
      ]);
      const again = await budgeted.redeliver(owner, webhook._id, log.nodes[0]!._id);
      expect([again.state, again.reason]).toEqual(['pending', null]);
      // Another member does not see the webhook, nor its log.
      expect(await refusal(budgeted.deliveriesOf(caller(1, 'member'), webhook._id, {}))).toEqual([
        'NOT_FOUND',
        expect.any(String),
      ]);
    } finally {
      await closeRedis(redis);
    }
  });
});
