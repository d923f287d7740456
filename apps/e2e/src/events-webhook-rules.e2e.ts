/**
 * The webhook rules of issue 26 on the shared stack (its worker retries after 1, 1, 2, 2 and 3 s and may deliver to
 * loopback): a rotation's overlap signs with both secrets and then only the new one; a ping, the delivery log and a
 * redelivery; an endpoint down for three attempts is delivered on the fourth; one that never answers is disabled after
 * the whole schedule, with a `webhook.disabled` event for its owner; a member's endpoint never receives another
 * member's private events (an admin's does); a deactivated owner's endpoint stops, and resumes once reactivated.
 * Every delivery is verified with the `standardwebhooks` library.
 */
import {
  http,
  startWebhookReceiver,
  testStack,
  type ReceivedDelivery,
  type WebhookReceiver,
} from '@platform/testing';
import { ADMIN, issueTokens, registerAccount, type Account } from './test/accounts';
import { waitFor, webhookCleanup } from './test/events-support';

jest.setTimeout(120_000);

const stack = testStack();
const gql = `${stack.gatewayUrl}/graphql`;

const CREATE = `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { secret webhook { id } } }`;
const ROTATE = `mutation($id: ID!, $overlap: Int) {
  rotateWebhookSecret(id: $id, overlapSeconds: $overlap) { secret webhook { previousSecretExpiresAt } }
}`;
const PING = `mutation($id: ID!) { pingWebhook(id: $id) { id messageId status } }`;
const REDELIVER = `mutation($w: ID!, $d: ID!) { redeliverWebhookDelivery(webhookId: $w, deliveryId: $d) { id status } }`;
const DELIVERIES = `query($id: ID!) {
  webhookDeliveries(webhookId: $id, first: 50) {
    nodes { id messageId eventType status attemptCount reason attempts { number at statusCode durationMs error } }
  }
}`;
const WEBHOOK = `query($id: ID!) { webhook(id: $id) { status disabledReason } }`;
const EVENTS = `query($filter: EventFilter) { events(first: 50, filter: $filter) { nodes { type resource { type id } data } } }`;

interface Member extends Account {
  token: string;
}

const member = async (prefix: string): Promise<Member> => {
  const account = await registerAccount(stack.restUrl, prefix);
  return {
    ...account,
    token: (await issueTokens(stack.restUrl, account.username, account.password)).access_token,
  };
};

const gqlOk = async (token: string, query: string, variables: Record<string, unknown>) => {
  const answer = await http.graphql(gql, query, variables, { token });
  if (answer.body.errors) throw new Error(JSON.stringify(answer.body.errors));
  return answer.body.data;
};

const webhooks = webhookCleanup(stack.restUrl);

const subscribe = async (owner: { token: string }, url: string, eventTypes: string[]) => {
  const created = await gqlOk(owner.token, CREATE, { input: { url, eventTypes } });
  webhooks.add(created.createWebhook.webhook.id as string, owner.token);
  return { id: created.createWebhook.webhook.id as string, secret: created.createWebhook.secret as string };
};

describe('webhook rules', () => {
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const made = await startWebhookReceiver({ tls: stack.webhookTls });
    receivers.push(made);
    return made;
  };
  let adminToken: string;

  beforeAll(async () => {
    adminToken = (await issueTokens(stack.restUrl, ADMIN.username, ADMIN.password)).access_token;
  });
  afterAll(async () => {
    await webhooks.removeAll();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('when the secret is rotated with an overlap, then both secrets sign meanwhile, and only the new one after', async () => {
    const owner = await member('rot');
    const endpoint = await receiver();
    const hook = await subscribe(owner, endpoint.url, ['item.created']);
    const rotated = await gqlOk(owner.token, ROTATE, { id: hook.id, overlap: 3600 });
    const fresh = rotated.rotateWebhookSecret.secret as string;
    expect(fresh).not.toBe(hook.secret);
    expect(rotated.rotateWebhookSecret.webhook.previousSecretExpiresAt).not.toBeNull();
    // Pings only: on the shared stack the webhook also receives other tests' item.created events.
    const pings = () => endpoint.received.filter((d) => JSON.parse(d.body).type === 'webhook.ping');
    await gqlOk(owner.token, PING, { id: hook.id });
    const during = await waitFor(async () => pings()[0]);
    expect(JSON.parse(during.body)).toMatchObject({
      type: 'webhook.ping',
      data: { webhook_id: Number(hook.id) },
    });
    expect(endpoint.verify(during, hook.secret)).toBeTruthy();
    expect(endpoint.verify(during, fresh)).toBeTruthy();

    const ended = await gqlOk(owner.token, ROTATE, { id: hook.id, overlap: 0 });
    const newest = ended.rotateWebhookSecret.secret as string;
    await gqlOk(owner.token, PING, { id: hook.id });
    const after = await waitFor(async () => pings()[1]);
    expect(endpoint.verify(after, newest)).toBeTruthy();
    expect(() => endpoint.verify(after, fresh)).toThrow();
    expect(() => endpoint.verify(after, hook.secret)).toThrow();
  });

  it('when a delivery is redelivered, then the endpoint gets the same webhook-id again and the log shows both attempts', async () => {
    const owner = await member('redel');
    const endpoint = await receiver();
    const hook = await subscribe(owner, endpoint.url, ['item.created']);
    const ping = (await gqlOk(owner.token, PING, { id: hook.id })).pingWebhook;
    await waitFor(async () => endpoint.received[0]);
    const delivered = await waitFor(async () => {
      const log = (await gqlOk(owner.token, DELIVERIES, { id: hook.id })).webhookDeliveries.nodes;
      return log[0]?.status === 'delivered' ? log[0] : undefined;
    });
    expect(delivered).toMatchObject({ id: ping.id, eventType: 'webhook.ping', attemptCount: 1 });
    expect(delivered.attempts).toEqual([
      { number: 1, at: expect.any(String), statusCode: 200, durationMs: expect.any(Number), error: null },
    ]);
    await gqlOk(owner.token, REDELIVER, { w: hook.id, d: ping.id });
    await waitFor(async () => endpoint.received[1]);
    expect(endpoint.received[1]!.headers['webhook-id']).toBe(ping.messageId);
    expect(endpoint.verify(endpoint.received[1]!, hook.secret)).toBeTruthy();
    const log = await waitFor(async () => {
      const node = (await gqlOk(owner.token, DELIVERIES, { id: hook.id })).webhookDeliveries.nodes[0];
      return node.attempts.length === 2 && node.status === 'delivered' ? node : undefined;
    });
    expect(log.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([200, 200]);
    // Someone else's webhook and its log are absent to another member.
    const stranger = await member('strg');
    const foreign = await http.graphql(gql, DELIVERIES, { id: hook.id }, { token: stranger.token });
    expect(foreign.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('when the endpoint is down for three attempts, then the fourth delivers; when it never answers, then it is disabled with an event', async () => {
    const owner = await member('retry');
    const flaky = await receiver();
    const dead = await receiver();
    dead.respond(() => 500);
    const flakyHook = await subscribe(owner, flaky.url, ['item.created']);
    // Only this test's item counts: on the shared stack the webhook also receives other tests' item.created events.
    const ours = (delivery: (typeof flaky.received)[number]) => {
      try {
        return (
          (flaky.verify(delivery, flakyHook.secret) as { data?: { name?: string } }).data?.name === 'retried'
        );
      } catch {
        return false;
      }
    };
    let calls = 0;
    flaky.respond((delivery) => (!ours(delivery) ? 200 : ++calls <= 3 ? 503 : 200));
    const deadHook = await subscribe(owner, dead.url, ['item.created']);
    const item = await http.post(`${stack.restUrl}/items/`, {
      token: owner.token,
      json: { name: 'retried', price: 1 },
    });
    expect(item.status).toBe(201);

    const settled = await waitFor(async () => {
      const nodes = (await gqlOk(owner.token, DELIVERIES, { id: flakyHook.id })).webhookDeliveries.nodes;
      // The delivery of this test's item: the one the endpoint refused (others were answered 200 at once).
      const node = nodes.find((n: { attempts: Array<{ statusCode: number }> }) =>
        n.attempts.some((a) => a.statusCode === 503),
      );
      return node?.status === 'delivered' ? node : undefined;
    });
    expect(settled.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 503, 503, 200]);
    const mine = flaky.received.filter(ours);
    for (const delivery of mine)
      expect(flaky.verify(delivery, flakyHook.secret)).toMatchObject({ type: 'item.created' });
    expect(new Set(mine.map((d) => d.headers['webhook-id'])).size).toBe(1);

    const disabled = await waitFor(async () => {
      const hook = (await gqlOk(owner.token, WEBHOOK, { id: deadHook.id })).webhook;
      return hook.status === 'disabled' ? hook : undefined;
    });
    expect(disabled.disabledReason).toBe('failing');
    const deadOnes = dead.received.filter((d) => JSON.parse(d.body).data?.name === 'retried');
    expect(deadOnes).toHaveLength(6); // the first try and the schedule's five retries
    const failed = (await gqlOk(owner.token, DELIVERIES, { id: deadHook.id })).webhookDeliveries.nodes.find(
      (n: { attemptCount: number }) => n.attemptCount === 6,
    );
    expect(failed).toMatchObject({ status: 'failed', attemptCount: 6 });
    const events = await waitFor(async () => {
      const found = (
        await gqlOk(owner.token, EVENTS, {
          filter: { types: ['webhook.disabled'], resourceType: 'webhook', resourceId: deadHook.id },
        })
      ).events.nodes;
      return found.length === 1 ? found : undefined;
    });
    expect(events[0].data).toMatchObject({ id: Number(deadHook.id), status: 'disabled', reason: 'failing' });
    const other = await member('othr');
    const hidden = await gqlOk(other.token, EVENTS, {
      filter: { types: ['webhook.disabled'], resourceId: deadHook.id, resourceType: 'webhook' },
    });
    expect(hidden.events.nodes).toEqual([]);
  });

  it("when another member acts, then a member's endpoint receives only what the member may read; an admin's no private event of others", async () => {
    const watcher = await member('watch');
    const actor = await member('actor');
    const watcherEndpoint = await receiver();
    const adminEndpoint = await receiver();
    const watcherHook = await subscribe(watcher, watcherEndpoint.url, ['*']);
    const adminHook = await subscribe({ token: adminToken }, adminEndpoint.url, ['*']);
    const key = await http.post(`${stack.restUrl}/api-keys`, {
      token: actor.token,
      json: { name: 'secret-key', scopes: ['items:read'] },
    });
    expect(key.status).toBe(201);
    const item = await http.post(`${stack.restUrl}/items/`, {
      token: actor.token,
      json: { name: 'public', price: 2 },
    });
    expect(item.status).toBe(201);
    const aboutActor = (r: WebhookReceiver) =>
      r.received.map((d) => JSON.parse(d.body)).filter((e) => e.actor?.id === actor.id);
    await waitFor(async () =>
      aboutActor(adminEndpoint).some((e) => e.type === 'item.created') ? true : undefined,
    );
    await waitFor(async () =>
      aboutActor(watcherEndpoint).some((e) => e.type === 'item.created') ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // the withheld one would have arrived by now
    // The admin reads the key's event in the feed (the audit trail), but no endpoint carries it off but its owner's.
    expect(aboutActor(adminEndpoint).map((e) => e.type)).toEqual(['item.created']);
    expect(aboutActor(watcherEndpoint).map((e) => e.type)).toEqual(['item.created']);
    for (const endpoint of [watcherEndpoint, adminEndpoint]) {
      expect(endpoint.received.map((d) => d.body).join('\n')).not.toContain('secret-key');
    }
    const audit = await http.get(`${stack.restUrl}/events?type=api_key.created&pageSize=100`, {
      token: adminToken,
    });
    const actorsKeyEvents = audit.body.data
      .filter((e: { actor: { id: number } }) => e.actor.id === actor.id)
      .map((e: { id: string }) => e.id);
    expect(actorsKeyEvents).toHaveLength(1);
    // Nor does the admin's delivery log show it. (The admin's own keys, made by other tests on the shared stack, are
    // the admin's to receive: only the actor's event is checked.)
    const log = await gqlOk(adminToken, DELIVERIES, { id: adminHook.id });
    expect(
      log.webhookDeliveries.nodes.filter((d: { messageId: string }) => actorsKeyEvents.includes(d.messageId)),
    ).toEqual([]);
    for (const d of watcherEndpoint.received)
      expect(watcherEndpoint.verify(d, watcherHook.secret)).toBeTruthy();
    for (const d of adminEndpoint.received) expect(adminEndpoint.verify(d, adminHook.secret)).toBeTruthy();
  });

  it('when the owner is deactivated, then its endpoint stops, its pending retries included; when reactivated, then it receives what happens since', async () => {
    const owner = await member('deact');
    const endpoint = await receiver();
    await subscribe(owner, endpoint.url, ['item.created']);
    const writer = await member('wrtr');
    const create = (name: string) =>
      http.post(`${stack.restUrl}/items/`, { token: writer.token, json: { name, price: 3 } });
    const nameOf = (d: ReceivedDelivery) => (JSON.parse(d.body) as { data: { name: string } }).data.name;
    const writers = () =>
      endpoint.received.filter(
        (d) => (JSON.parse(d.body) as { actor?: { id?: number } }).actor?.id === writer.id,
      );
    // The first try of the writer's first item is refused: its retry is due a second later (the stack's schedule).
    endpoint.respond((d) =>
      (JSON.parse(d.body) as { actor?: { id?: number } }).actor?.id === writer.id && writers().length === 1
        ? 503
        : 200,
    );
    expect((await create('before-deactivation')).status).toBe(201);
    await waitFor(async () => writers()[0]);
    // Deactivated and activated again while that retry is pending, with an item made in between.
    expect(
      (await http.post(`${stack.restUrl}/users/${owner.id}/deactivate`, { token: adminToken })).status,
    ).toBe(200);
    expect((await create('while-deactivated')).status).toBe(201);
    expect(
      (await http.post(`${stack.restUrl}/users/${owner.id}/activate`, { token: adminToken })).status,
    ).toBe(200);
    expect((await create('after-reactivation')).status).toBe(201);
    // Of this writer's events (the endpoint also gets the public item events of other tests on the shared stack), the
    // one made after the reactivation arrives; neither the retry pending across the deactivation nor the event made
    // during it does, however far behind the worker runs.
    const got = await waitFor(async () => writers().find((d) => nameOf(d) === 'after-reactivation'));
    expect(nameOf(got)).toBe('after-reactivation');
    await new Promise((resolve) => setTimeout(resolve, 4_000)); // well past the retry's due time
    expect(writers().map(nameOf)).toEqual(['before-deactivation', 'after-reactivation']);
  });

  it('when a webhook is made with a token narrowed to items:read, then it carries item events only and that token cannot widen it or change a wider one', async () => {
    const owner = await member('narrow');
    const narrowed = (await issueTokens(stack.restUrl, owner.username, owner.password, 'items:read'))
      .access_token;
    const endpoint = await receiver();
    const made = await http.post(`${stack.restUrl}/webhooks`, {
      token: narrowed,
      json: { url: endpoint.url, event_types: ['*'] },
    });
    expect(made.status).toBe(201);
    webhooks.add(made.body.id as number, owner.token);
    expect(made.body.scopes).toEqual(['items:read']);
    const secret = made.body.secret as string;
    // A type of a scope the token lacks: refused, naming it.
    const wider = await http.post(`${stack.restUrl}/webhooks`, {
      token: narrowed,
      json: { url: endpoint.url, event_types: ['user.updated'] },
    });
    expect(wider.status).toBe(422);
    expect(wider.text).toContain('users:read');
    // A webhook the full token made: the narrowed one may not re-point or re-key it.
    const full = await subscribe(owner, endpoint.url, ['user.updated']);
    const repoint = await http.patch(`${stack.restUrl}/webhooks/${full.id}`, {
      token: narrowed,
      json: { url: 'https://example.com/elsewhere' },
    });
    expect(repoint.status).toBe(403);
    const rekey = await http.post(`${stack.restUrl}/webhooks/${full.id}/rotate-secret`, {
      token: narrowed,
      json: {},
    });
    expect(rekey.status).toBe(403);
    expect((await http.delete(`${stack.restUrl}/webhooks/${full.id}`, { token: owner.token })).status).toBe(
      204,
    );
    // The owner changes its own profile (an account event, e-mail included) and makes an item.
    expect(
      (
        await http.patch(`${stack.restUrl}/users/${owner.id}`, {
          token: owner.token,
          json: { full_name: 'Narrow' },
        })
      ).status,
    ).toBe(200);
    const item = await http.post(`${stack.restUrl}/items/`, {
      token: owner.token,
      json: { name: 'narrowed', price: 1 },
    });
    expect(item.status).toBe(201);
    const got = await waitFor(async () =>
      endpoint.received.find(
        (d) => JSON.parse(d.body).resource?.id === item.body.id && JSON.parse(d.body).type === 'item.created',
      ),
    );
    expect(endpoint.verify(got, secret)).toBeTruthy();
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // the account event would have arrived by now
    // Other tests' members create public items on the shared stack meanwhile (items:read may read them): what this
    // endpoint got is item events only, and of this owner's doings exactly its item's creation.
    const events = endpoint.received.map(
      (d) =>
        JSON.parse(d.body) as {
          type: string;
          actor?: { id?: number };
          resource?: { type: string; id: number };
        },
    );
    expect(events.filter((e) => !e.type.startsWith('item.'))).toEqual([]);
    const owners = events.filter(
      (e) => e.actor?.id === owner.id || (e.resource?.type === 'user' && e.resource.id === owner.id),
    );
    expect(owners.map((e) => [e.type, e.resource?.id])).toEqual([['item.created', item.body.id]]);
    expect(endpoint.received.map((d) => d.body).join('\n')).not.toContain(owner.email);
  });

  it("when an admin changes a member's webhook, then it may not re-point or re-key it, and every write is in the audit trail with its actor", async () => {
    const owner = await member('audit');
    const endpoint = await receiver();
    const adminEndpoint = await receiver();
    const made = await http.post(`${stack.restUrl}/webhooks`, {
      token: owner.token,
      json: { url: endpoint.url, event_types: ['*'] },
    });
    expect(made.status).toBe(201);
    const id = made.body.id as number;
    webhooks.add(String(id), owner.token);
    const secret = made.body.secret as string;
    const adminId = Number(JSON.parse(Buffer.from(adminToken.split('.')[1]!, 'base64url').toString()).uid);
    const repoint = await http.patch(`${stack.restUrl}/webhooks/${id}`, {
      token: adminToken,
      json: { url: adminEndpoint.url },
    });
    expect([repoint.status, repoint.body.detail]).toEqual([
      403,
      "Not enough permissions: only the webhook's owner may change its url",
    ]);
    const rekey = await http.post(`${stack.restUrl}/webhooks/${id}/rotate-secret`, { token: adminToken, json: {} });
    expect([rekey.status, rekey.body.detail]).toEqual([
      403,
      "Not enough permissions: only the webhook's owner may change its signing secret",
    ]);
    expect((await http.get(`${stack.restUrl}/webhooks/${id}`, { token: owner.token })).body.url).toBe(endpoint.url);
    expect(
      (await http.patch(`${stack.restUrl}/webhooks/${id}`, { token: adminToken, json: { description: 'seen' } }))
        .status,
    ).toBe(200);
    const key = await http.post(`${stack.restUrl}/api-keys`, {
      token: owner.token,
      json: { name: 'mine', scopes: ['items:read'] },
    });
    expect(key.status).toBe(201);
    // The owner's endpoint hears of the admin's change and keeps its own private events; the admin's URL gets nothing.
    const bodies = () => endpoint.received.map((d) => JSON.parse(d.body) as { type: string; actor: unknown });
    // Deliveries of different events arrive in any order: wait for both.
    const arrived = (type: string) => bodies().some((e) => e.type === type);
    await waitFor(async () => (arrived('api_key.created') && arrived('webhook.updated') ? true : undefined));
    expect(bodies().find((e) => e.type === 'webhook.updated')?.actor).toEqual({ type: 'user', id: adminId });
    for (const d of endpoint.received) expect(endpoint.verify(d, secret)).toBeTruthy();
    expect(adminEndpoint.received).toEqual([]);
    const rotated = await http.post(`${stack.restUrl}/webhooks/${id}/rotate-secret`, { token: owner.token, json: {} });
    expect(rotated.status).toBe(200);
    expect((await http.delete(`${stack.restUrl}/webhooks/${id}`, { token: adminToken })).status).toBe(204);
    const trail = await waitFor(async () => {
      const page = await http.get(`${stack.restUrl}/events?resource_type=webhook&resource_id=${id}`, {
        token: owner.token,
      });
      return page.body.data?.length === 4 ? (page.body.data as Array<{ type: string; actor: unknown }>) : undefined;
    });
    expect(trail.map((e) => [e.type, e.actor]).reverse()).toEqual([
      ['webhook.created', { type: 'user', id: owner.id }],
      ['webhook.updated', { type: 'user', id: adminId }],
      ['webhook.secret_rotated', { type: 'user', id: owner.id }],
      ['webhook.deleted', { type: 'user', id: adminId }],
    ]);
    expect(JSON.stringify(trail)).not.toMatch(/whsec_/);
    const other = await member('audo');
    const hidden = await http.get(`${stack.restUrl}/events?resource_type=webhook&resource_id=${id}`, {
      token: other.token,
    });
    expect([hidden.status, hidden.body.data]).toEqual([200, []]);
  });
});
