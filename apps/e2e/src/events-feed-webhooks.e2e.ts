/**
 * Events end to end on the shared stack: a write in the items subgraph records its event (item.created, updated,
 * deleted, with the item's REST representation, the actor and the request id); the feed shows it to readers and the
 * audit trail to admins; a subscribed webhook receives it signed per Standard Webhooks (verified with the
 * `standardwebhooks` library, which refuses a tampered body or a stale timestamp).
 */
import {
  http,
  startWebhookReceiver,
  testStack,
  unique,
  type HttpResponse,
  type WebhookReceiver,
} from '@platform/testing';
import { Webhook } from 'standardwebhooks';
import { ADMIN, issueTokens, registerAccount } from './test/accounts';
import { waitFor, webhookCleanup } from './test/events-support';

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

describe('events and webhooks', () => {
  let receiver: WebhookReceiver;
  let memberToken: string;
  let adminToken: string;
  let memberId: number;

  beforeAll(async () => {
    receiver = await startWebhookReceiver({ tls: stack.webhookTls });
    const member = await registerAccount(stack.restUrl, 'evt');
    memberId = member.id;
    memberToken = (await issueTokens(stack.restUrl, member.username, member.password)).access_token;
    adminToken = (await issueTokens(stack.restUrl, ADMIN.username, ADMIN.password)).access_token;
  });
  const webhooks = webhookCleanup(stack.restUrl);
  afterAll(async () => {
    await webhooks.removeAll();
    await receiver.close();
  });

  it('when a member creates, updates and deletes an item, then three events reach the feed and its webhook, signed', async () => {
    const created = await http.graphql(
      gql,
      CREATE_WEBHOOK,
      { input: { url: receiver.url, eventTypes: ['item.created', 'item.updated', 'item.deleted'] } },
      { token: memberToken },
    );
    expect(created.body.errors).toBeUndefined();
    webhooks.add(created.body.data.createWebhook.webhook.id as string, memberToken);
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

  it('when every kind of write is made once, then each records exactly one event of its type, private ones only for their owner', async () => {
    const alice = await registerAccount(stack.restUrl, 'evta');
    const bob = await registerAccount(stack.restUrl, 'evtb');
    const aliceToken = (await issueTokens(stack.restUrl, alice.username, alice.password)).access_token;
    const bobToken = (await issueTokens(stack.restUrl, bob.username, bob.password)).access_token;
    const ok = async (response: Promise<HttpResponse<{ id: number }>>, status: number) => {
      const answered = await response;
      expect(`${answered.status} ${answered.text}`).toMatch(new RegExp(`^${status}`));
      return answered;
    };
    await ok(
      http.patch(`${stack.restUrl}/users/${alice.id}`, { token: aliceToken, json: { full_name: 'Alice' } }),
      200,
    );
    await ok(http.post(`${stack.restUrl}/users/${alice.id}/deactivate`, { token: adminToken }), 200);
    await ok(http.post(`${stack.restUrl}/users/${alice.id}/activate`, { token: adminToken }), 200);
    await ok(
      http.post(`${stack.restUrl}/users/${alice.id}/reset-password`, {
        token: aliceToken,
        json: { current_password: alice.password, new_password: `${alice.password}x` },
      }),
      200,
    );
    const aliceAgain = (await issueTokens(stack.restUrl, alice.username, `${alice.password}x`)).access_token;
    const post = (
      await ok(
        http.post(`${stack.restUrl}/posts`, { token: aliceAgain, json: { title: 't', body: 'b' } }),
        201,
      )
    ).body;
    await ok(
      http.patch(`${stack.restUrl}/posts/${post.id}`, { token: aliceAgain, json: { title: 't2' } }),
      200,
    );
    await ok(http.post(`${stack.restUrl}/posts/${post.id}/like`, { token: bobToken }), 200);
    await ok(http.post(`${stack.restUrl}/posts/${post.id}/like`, { token: bobToken }), 200); // a repeat: no event
    await ok(http.delete(`${stack.restUrl}/posts/${post.id}/like`, { token: bobToken }), 204);
    const comment = (
      await ok(
        http.post(`${stack.restUrl}/posts/${post.id}/comments`, { token: bobToken, json: { body: 'c' } }),
        201,
      )
    ).body;
    await ok(
      http.patch(`${stack.restUrl}/posts/${post.id}/comments/${comment.id}`, {
        token: bobToken,
        json: { body: 'c2' },
      }),
      200,
    );
    await ok(
      http.delete(`${stack.restUrl}/posts/${post.id}/comments/${comment.id}`, { token: bobToken }),
      204,
    );
    await ok(http.delete(`${stack.restUrl}/posts/${post.id}`, { token: aliceAgain }), 204);
    const key = (
      await ok(
        http.post(`${stack.restUrl}/api-keys`, {
          token: aliceAgain,
          json: { name: 'k', scopes: ['items:read'] },
        }),
        201,
      )
    ).body;
    await ok(
      http.patch(`${stack.restUrl}/api-keys/${key.id}`, { token: aliceAgain, json: { name: 'k2' } }),
      200,
    );
    await ok(http.delete(`${stack.restUrl}/api-keys/${key.id}`, { token: aliceAgain }), 204);
    await ok(http.delete(`${stack.restUrl}/users/${bob.id}`, { token: bobToken }), 204);

    const mine = (e: {
      actor: { id: string | null };
      resource: { type: string; id: string };
      data: Record<string, unknown>;
    }) =>
      [String(alice.id), String(bob.id)].includes(String(e.actor.id)) ||
      (e.resource.type === 'user' && [String(alice.id), String(bob.id)].includes(e.resource.id));
    const types = await waitFor(async () => {
      const page = await http.graphql(gql, EVENTS, { first: 100 }, { token: adminToken });
      const found = (page.body.data?.events.nodes ?? [])
        .filter(mine)
        .map((e: { type: string }) => e.type)
        .reverse();
      return found.length >= 18 ? found : undefined;
    });
    expect(types).toEqual([
      'user.created',
      'user.created',
      'user.updated',
      'user.deactivated',
      'user.activated',
      'user.password_reset',
      'post.created',
      'post.updated',
      'post.liked',
      'post.unliked',
      'comment.created',
      'comment.updated',
      'comment.deleted',
      'post.deleted',
      'api_key.created',
      'api_key.updated',
      'api_key.revoked',
      'user.deleted',
    ]);
    // Private events (a password reset, API keys) are the owner's: another member lists none of them.
    const carol = await registerAccount(stack.restUrl, 'evtc');
    const carolToken = (await issueTokens(stack.restUrl, carol.username, carol.password)).access_token;
    const seen = await http.graphql(
      gql,
      EVENTS,
      { first: 100, filter: { types: ['user.password_reset', 'api_key.created'] } },
      { token: carolToken },
    );
    expect(seen.body.data.events.nodes.filter(mine)).toEqual([]);
    const own = await http.graphql(
      gql,
      EVENTS,
      { first: 100, filter: { types: ['api_key.created'] } },
      { token: aliceAgain },
    );
    expect(own.body.data.events.nodes.filter(mine)).toHaveLength(1);
    expect(JSON.stringify(own.body.data.events.nodes)).not.toMatch(/digest|ak_[A-Za-z0-9_-]{20,}/);
  });

  it('when the admin lists events, then it sees every event (the audit trail), and a viewer-less caller nothing', async () => {
    const admin = await http.graphql(gql, EVENTS, { first: 100 }, { token: adminToken });
    expect(admin.body.errors).toBeUndefined();
    expect(admin.body.data.events.nodes.length).toBeGreaterThan(0);
    const anonymous = await http.graphql(gql, EVENTS, { first: 5 });
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
