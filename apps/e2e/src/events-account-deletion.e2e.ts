/**
 * An account's deletion in the events service, across the stack: its webhooks go (for admins too) and nothing reaches
 * them after; its past events keep no personal data for anyone; a password reset names its actor.
 */
import { http, startWebhookReceiver, testStack, type WebhookReceiver } from '@platform/testing';
import { ADMIN, issueTokens, registerAccount, type Account } from './test/accounts';
import { waitFor, webhookCleanup } from './test/events-support';

jest.setTimeout(120_000);

const stack = testStack();
const rest = stack.restUrl;
const gql = `${stack.gatewayUrl}/graphql`;

const EVENTS = `query($filter: EventFilter) {
  events(first: 100, filter: $filter) { nodes { id type actor { type id } resource { type id } data } }
}`;

interface FeedEvent {
  id: string;
  type: string;
  actor: { type: string; id: string | null };
  resource: { type: string; id: string };
  data: Record<string, unknown>;
}

const eventsOf = async (token: string, userId: number, types?: string[]): Promise<FeedEvent[]> => {
  const page = await http.graphql(
    gql,
    EVENTS,
    { filter: { resourceType: 'user', resourceId: String(userId), ...(types ? { types } : {}) } },
    { token },
  );
  expect(page.body.errors).toBeUndefined();
  return page.body.data.events.nodes as FeedEvent[];
};

describe('a deleted account in the events service', () => {
  let receiver: WebhookReceiver;
  let sentinel: WebhookReceiver;
  let adminToken: string;
  let adminId: number;
  const webhooks = webhookCleanup(rest);

  const login = async (account: Account) => (await issueTokens(rest, account.username, account.password)).access_token;

  beforeAll(async () => {
    receiver = await startWebhookReceiver({ tls: stack.webhookTls });
    sentinel = await startWebhookReceiver({ tls: stack.webhookTls });
    adminToken = (await issueTokens(rest, ADMIN.username, ADMIN.password)).access_token;
    adminId = (await http.get(`${rest}/users/me`, { token: adminToken })).body.id as number;
  });

  afterAll(async () => {
    await webhooks.removeAll();
    await receiver?.close();
    await sentinel?.close();
  });

  it('when an account is deleted, then its webhooks are gone for admins too and nothing reaches them after', async () => {
    const owner = await registerAccount(rest, 'delhook');
    const ownerToken = await login(owner);
    const created = await http.post(`${rest}/webhooks`, { token: ownerToken, json: { url: receiver.url, event_types: ['*'] } });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    webhooks.add(id, adminToken);
    expect((await http.get(`${rest}/webhooks/${id}`, { token: adminToken })).status).toBe(200);
    const item = await http.post(`${rest}/items/`, { token: ownerToken, json: { name: 'doomed', price: 1 } });
    expect(item.status).toBe(201);
    await waitFor(
      async () =>
        receiver.received.some((d) => {
          const body = JSON.parse(d.body) as { type: string; resource: { id: number } };
          return body.type === 'item.created' && body.resource.id === item.body.id;
        })
          ? true
          : undefined,
      45_000,
      'a delivery before the deletion',
    );

    const deleted = await http.delete(`${rest}/users/${owner.id}`, { token: ownerToken });
    expect(deleted.status).toBe(204);
    const receivedAtDeletion = receiver.received.length;

    expect((await http.get(`${rest}/webhooks/${id}`, { token: adminToken })).status).toBe(404);
    expect((await http.get(`${rest}/webhooks/${id}/deliveries`, { token: adminToken })).status).toBe(404);
    const listed = (await http.get(`${rest}/webhooks`, { token: adminToken })).body as Array<{ id: number }>;
    expect(listed.map((w) => w.id)).not.toContain(id);

    // The sentinel: another member's webhook gets a later event the deleted owner's `*` webhook would have got too.
    const other = await registerAccount(rest, 'delsentinel');
    const otherToken = await login(other);
    const watching = await http.post(`${rest}/webhooks`, {
      token: otherToken,
      json: { url: sentinel.url, event_types: ['item.created'] },
    });
    expect(watching.status).toBe(201);
    webhooks.add(watching.body.id as number, otherToken);
    const later = await http.post(`${rest}/items/`, { token: otherToken, json: { name: 'later', price: 2 } });
    expect(later.status).toBe(201);
    await waitFor(
      async () => (sentinel.received.some((d) => JSON.parse(d.body).resource.id === later.body.id) ? true : undefined),
      45_000,
      'the sentinel delivery',
    );
    expect(receiver.received.length).toBe(receivedAtDeletion);
  });

  it('when an account is deleted, then none of its past events shows its personal data to another member or an admin, nor a webhook delivery of them', async () => {
    const reader = await registerAccount(rest, 'delreader');
    const readerToken = await login(reader);
    const watching = await http.post(`${rest}/webhooks`, {
      token: readerToken,
      json: { url: sentinel.url, event_types: ['user.deleted'] },
    });
    expect(watching.status).toBe(201);
    webhooks.add(watching.body.id as number, readerToken);
    const gone = await registerAccount(rest, 'delprivate');
    const goneToken = await login(gone);
    const named = await http.patch(`${rest}/users/${gone.id}`, { token: goneToken, json: { full_name: 'Private Person' } });
    expect(named.status).toBe(200);
    const before = await waitFor(async () => {
      const found = await eventsOf(readerToken, gone.id);
      return found.length >= 2 ? found : undefined;
    }, 45_000, 'the account events');
    expect(JSON.stringify(before)).toContain(gone.email);

    expect((await http.delete(`${rest}/users/${gone.id}`, { token: goneToken })).status).toBe(204);
    const deletion = await waitFor(async () => {
      const [found] = await eventsOf(adminToken, gone.id, ['user.deleted']);
      return found;
    }, 45_000, 'the user.deleted event');
    for (const token of [readerToken, adminToken]) {
      const after = await eventsOf(token, gone.id);
      expect(after.map((e) => e.type).sort()).toEqual(['user.created', 'user.deleted', 'user.updated']);
      expect(after.map((e) => e.id)).toEqual(expect.arrayContaining(before.map((e) => e.id)));
      for (const event of after) expect(event.data).toEqual({ id: gone.id });
      for (const word of [gone.email, gone.username, 'Private Person']) expect(JSON.stringify(after)).not.toContain(word);
    }
    const delivered = await waitFor(
      async () => sentinel.received.find((d) => d.headers['webhook-id'] === deletion.id),
      45_000,
      'the user.deleted delivery',
    );
    expect(JSON.parse(delivered.body).data).toEqual({ id: gone.id });
    expect(delivered.body).not.toContain(gone.email);
  });

  it('when a password is reset by its owner or by an admin, then its event names that user as the actor', async () => {
    const member = await registerAccount(rest, 'delreset');
    const memberToken = await login(member);
    const own = await http.post(`${rest}/users/${member.id}/reset-password`, {
      token: memberToken,
      json: { current_password: member.password, new_password: `${member.password}-new` },
    });
    expect(own.status).toBe(200);
    const byAdmin = await http.post(`${rest}/users/${member.id}/reset-password`, {
      token: adminToken,
      json: { new_password: `${member.password}-admin` },
    });
    expect(byAdmin.status).toBe(200);
    const resets = await waitFor(async () => {
      const found = await eventsOf(adminToken, member.id, ['user.password_reset']);
      return found.length >= 2 ? found : undefined;
    }, 45_000, 'the reset events');
    // Newest first: the admin's reset, then the owner's.
    expect(resets.map((e) => e.actor)).toEqual([
      { type: 'user', id: String(adminId) },
      { type: 'user', id: String(member.id) },
    ]);
  });
});
