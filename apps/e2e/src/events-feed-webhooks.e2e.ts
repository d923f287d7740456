/**
 * Events end to end on the shared stack: a write in the items subgraph records its event (item.created, updated,
 * deleted, with the item's REST representation, the actor and the request id); the feed shows it to readers and the
 * audit trail to admins; a subscribed webhook receives it signed per Standard Webhooks (verified with the
 * `standardwebhooks` library, which refuses a tampered body or a stale timestamp).
 */
import { http, startWebhookReceiver, testStack, unique, type WebhookReceiver } from '@platform/testing';
import { Webhook } from 'standardwebhooks';
import { ADMIN, issueTokens, registerAccount } from './test/accounts';

jest.setTimeout(90_000);

const stack = testStack();
const gql = `${stack.gatewayUrl}/graphql`;

const CREATE_WEBHOOK = `mutation($input: CreateWebhookInput!) {
  createWebhook(input: $input) { secret webhook { id url eventTypes status version } }
}`;
const EVENTS = `query($first: Int, $after: String, $filter: EventFilter) {
  events(first: $first, after: $after, filter: $filter) {
    nodes { id type occurredAt actor { type id } resource { type id } data requestId }
    pageInfo { endCursor hasNextPage }
  }
}`;

const waitFor = async <T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

describe('events and webhooks', () => {
  let receiver: WebhookReceiver;
  let memberToken: string;
  let adminToken: string;
  let memberId: number;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    const member = await registerAccount(stack.restUrl, 'evt');
    memberId = member.id;
    memberToken = (await issueTokens(stack.restUrl, member.username, member.password)).access_token;
    adminToken = (await issueTokens(stack.restUrl, ADMIN.username, ADMIN.password)).access_token;
  });
  afterAll(() => receiver.close());

  it('when a member creates, updates and deletes an item, then three events reach the feed and its webhook, signed', async () => {
    const created = await http.graphql(
      gql,
      CREATE_WEBHOOK,
      { input: { url: receiver.url, eventTypes: ['item.created', 'item.updated', 'item.deleted'] } },
      { token: memberToken },
    );
    expect(created.body.errors).toBeUndefined();
    const secret = created.body.data.createWebhook.secret as string;
    expect(secret).toMatch(/^whsec_/);

    const requestId = `evt-test-${unique()}`;
    const item = await http.post(`${stack.restUrl}/items/`, {
      token: memberToken,
      headers: { 'x-request-id': requestId },
      json: { name: 'evented', price: 12.5 },
    });
    expect(item.status).toBe(201);
    const itemId = item.body.id as number;
    expect(
      (await http.patch(`${stack.restUrl}/items/${itemId}`, { token: memberToken, json: { price: 13 } }))
        .status,
    ).toBe(200);
    expect((await http.delete(`${stack.restUrl}/items/${itemId}`, { token: memberToken })).status).toBe(204);

    const feed = await waitFor(async () => {
      const page = await http.graphql(
        gql,
        EVENTS,
        { first: 10, filter: { resourceType: 'item', resourceId: String(itemId) } },
        { token: memberToken },
      );
      return page.body.data?.events.nodes.length === 3 ? page.body.data.events.nodes : undefined;
    });
    expect(feed.map((e: { type: string }) => e.type)).toEqual([
      'item.deleted',
      'item.updated',
      'item.created',
    ]);
    const createdEvent = feed[2];
    expect(createdEvent).toMatchObject({
      actor: { type: 'user', id: String(memberId) },
      resource: { type: 'item', id: String(itemId) },
      data: { id: itemId, name: 'evented', price: 12.5, owner_id: memberId, description: null },
      requestId,
    });
    expect(feed[1].data.price).toBe(13);

    const deliveries = await waitFor(async () => {
      const mine = receiver.received.filter((d) => JSON.parse(d.body).resource?.id === itemId);
      return mine.length === 3 ? mine : undefined;
    });
    for (const delivery of deliveries) {
      const verified = receiver.verify(delivery, secret) as { id: string; type: string };
      expect(delivery.headers['webhook-id']).toBe(verified.id);
      expect(feed.map((e: { id: string }) => e.id)).toContain(verified.id);
    }
    // A tampered body, a stale timestamp and another secret all fail verification at the receiver.
    const sample = deliveries[0]!;
    expect(() =>
      receiver.verify({ ...sample, body: sample.body.replace('evented', 'tampered') }, secret),
    ).toThrow();
    const stale = String(Math.floor(Date.now() / 1000) - 3600);
    expect(() =>
      new Webhook(secret).verify(sample.body, {
        'webhook-id': String(sample.headers['webhook-id']),
        'webhook-timestamp': stale,
        'webhook-signature': String(sample.headers['webhook-signature']),
      }),
    ).toThrow();
    expect(() => receiver.verify(sample, `whsec_${Buffer.alloc(32, 7).toString('base64')}`)).toThrow();
  });

  it('when the admin lists events, then it sees every event (the audit trail), and a viewer-less caller nothing', async () => {
    const admin = await http.graphql(gql, EVENTS, { first: 100 }, { token: adminToken });
    expect(admin.body.errors).toBeUndefined();
    expect(admin.body.data.events.nodes.length).toBeGreaterThan(0);
    const anonymous = await http.graphql(gql, EVENTS, { first: 5 });
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
