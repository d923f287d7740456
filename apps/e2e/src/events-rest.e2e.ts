/**
 * The REST side of events (issue 26) through the shared facade: GET /events pages newest first with a cursor and a
 * Link header, filters by type, resource and time, refuses bad input in the deployment's error shape; webhooks are
 * created with their secret once (never in a GET or a listing; a keyed retry replays it, sealed), read, changed with
 * If-Match, pinged, logged, redelivered and deleted; another member's webhook is 404.
 */
import { http, startWebhookReceiver, testStack, type WebhookReceiver } from '@platform/testing';
import { issueTokens, registerAccount } from './test/accounts';
import { waitFor } from './test/events-support';

jest.setTimeout(90_000);

const stack = testStack();
const rest = stack.restUrl;

describe('events and webhooks over REST', () => {
  let token: string;
  let otherToken: string;
  let receiver: WebhookReceiver;
  const itemIds: number[] = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver({ tls: stack.webhookTls });
    const owner = await registerAccount(rest, 'rev');
    const other = await registerAccount(rest, 'reo');
    token = (await issueTokens(rest, owner.username, owner.password)).access_token;
    otherToken = (await issueTokens(rest, other.username, other.password)).access_token;
    for (const name of ['one', 'two', 'three']) {
      const created = await http.post(`${rest}/items/`, { token, json: { name, price: 1 } });
      itemIds.push(created.body.id as number);
    }
  });
  afterAll(() => receiver.close());

  it('when the feed is paged, then it goes newest first, pageToken continues it, and Link names the next page', async () => {
    const mine = `resource_type=item&type=item.created`;
    const all = await waitFor(async () => {
      const pages = await Promise.all(
        itemIds.map((id) => http.get(`${rest}/events?${mine}&resource_id=${id}`, { token })),
      );
      return pages.every((p) => p.body.data?.length === 1) ? pages.map((p) => p.body.data[0]) : undefined;
    });
    expect(all.map((e: { resource: { id: number } }) => e.resource.id)).toEqual(itemIds);
    const first = await http.get(`${rest}/events?type=item.created&pageSize=1`, { token });
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(1);
    const next = first.body.pagination.nextPageToken as string;
    expect(next).toBe(first.body.data[0].id);
    expect(first.headers.get('link')).toContain(`pageToken=${next}`);
    const second = await http.get(`${rest}/events?type=item.created&pageSize=1&pageToken=${next}`, { token });
    expect(second.body.data[0].id < next).toBe(true);
    const since = await http.get(
      `${rest}/events?resource_type=item&resource_id=${itemIds[2]}&occurred_after=${encodeURIComponent(all[2].occurred_at)}`,
      { token },
    );
    expect(since.body.data).toEqual([]);
    const one = await http.get(`${rest}/events/${all[0].id}`, { token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(all[0]);
  });

  it('when the feed is asked wrongly, then 401 without a credential and a validation error naming the parameter', async () => {
    expect((await http.get(`${rest}/events`)).status).toBe(401);
    for (const query of [
      'type=item.exploded',
      'pageSize=0',
      'pageToken=nope',
      'occurred_after=yesterday',
      'resource_id=-1',
      'colour=red',
    ]) {
      const answer = await http.get(`${rest}/events?${query}`, { token });
      expect(`${query} ${answer.status}`).toBe(`${query} 422`);
    }
    expect((await http.get(`${rest}/events/evt_00000000000000000000000000`, { token })).status).toBe(404);
  });

  it.each(['1e3', '01', '%201', '0x10', '1.0', '%2B1', '1%0a', '0'])(
    'when the feed is asked for resource_id=%s, then 422 names resource_id (ids are canonical integers)',
    async (raw) => {
      const answer = await http.get(`${rest}/events?resource_type=item&resource_id=${raw}`, { token });
      expect({ raw, status: answer.status }).toEqual({ raw, status: 422 });
      expect(answer.body.detail).toContain('resource_id');
    },
  );

  it.each(['2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-01-01T24:00:00Z', '5'])(
    'when the feed is asked for occurred_after=%s, then 422 names occurred_after',
    async (raw) => {
      const answer = await http.get(`${rest}/events?occurred_after=${encodeURIComponent(raw)}`, { token });
      expect({ raw, status: answer.status }).toEqual({ raw, status: 422 });
      expect(answer.body.detail).toContain('occurred_after');
    },
  );

  it('when the gateway is asked for events after a malformed instant, literal or variable, then BAD_USER_INPUT, never a 500', async () => {
    const gateway = `${stack.gatewayUrl}/graphql`;
    for (const value of ['yesterday', 5, '2026-13-01T00:00:00Z', '2026-02-30T00:00:00Z']) {
      const literal = await http.graphql(
        gateway,
        `{ events(filter: { occurredAfter: ${JSON.stringify(value)} }) { nodes { id } } }`,
        {},
        { token },
      );
      const variable = await http.graphql(
        gateway,
        'query ($filter: EventFilter) { events(filter: $filter) { nodes { id } } }',
        { filter: { occurredAfter: value } },
        { token },
      );
      for (const [form, answer] of [['literal', literal], ['variable', variable]] as const) {
        const codes = (answer.body.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code);
        expect({ value, form, codes }).toEqual({ value, form, codes: ['BAD_USER_INPUT'] });
        expect(answer.body.errors[0].message).toContain('must be an RFC 3339 date-time');
      }
      expect(variable.body.errors[0].message).toContain('filter.occurredAfter');
    }
  });

  it('when a webhook description holds NUL or an unpaired surrogate, then REST (create, change) and GraphQL refuse it naming description', async () => {
    for (const description of ['x\u0000y', 'x\ud800', '\udc00x']) {
      const created = await http.post(`${rest}/webhooks`, {
        token,
        json: { url: receiver.url, event_types: ['item.created'], description },
      });
      expect({ description, status: created.status }).toEqual({ description, status: 422 });
      expect(created.body.detail).toContain('description');
      const viaGraphql = await http.graphql(
        `${stack.gatewayUrl}/graphql`,
        'mutation ($input: CreateWebhookInput!) { createWebhook(input: $input) { secret } }',
        { input: { url: receiver.url, eventTypes: ['item.created'], description } },
        { token },
      );
      expect(viaGraphql.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(JSON.stringify(viaGraphql.body.errors[0])).toContain('description');
      expect(viaGraphql.body.data?.createWebhook ?? null).toBeNull();
    }
    const kept = await http.post(`${rest}/webhooks`, {
      token,
      json: { url: receiver.url, event_types: ['item.created'], description: 'kept 😀' },
    });
    expect(kept.status).toBe(201);
    const changed = await http.patch(`${rest}/webhooks/${kept.body.id}`, { token, json: { description: 'a\u0000' } });
    expect(changed.status).toBe(422);
    expect(changed.body.detail).toContain('description');
    expect((await http.get(`${rest}/webhooks/${kept.body.id}`, { token })).body.description).toBe('kept 😀');
    expect((await http.delete(`${rest}/webhooks/${kept.body.id}`, { token })).status).toBe(204);
  });

  it('when a webhook is created, then its secret is answered once; it is read, changed with If-Match, pinged, logged and deleted', async () => {
    const created = await http.post(`${rest}/webhooks`, {
      token,
      json: { url: receiver.url, event_types: ['item.created'], description: 'rest' },
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const id = created.body.id as number;
    expect(created.headers.get('location')).toBe(`/webhooks/${id}`);
    const read = await http.get(`${rest}/webhooks/${id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(JSON.stringify((await http.get(`${rest}/webhooks`, { token })).body)).not.toContain(
      created.body.secret,
    );
    expect((await http.get(`${rest}/webhooks/${id}`, { token: otherToken })).status).toBe(404);

    const stale = await http.patch(`${rest}/webhooks/${id}`, {
      token,
      headers: { 'if-match': '"999"' },
      json: { description: 'changed' },
    });
    expect(stale.status).toBe(412);
    const changed = await http.patch(`${rest}/webhooks/${id}`, {
      token,
      headers: { 'if-match': read.headers.get('etag')! },
      json: { description: 'changed', event_types: ['item.created', 'item.deleted'] },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      description: 'changed',
      event_types: ['item.created', 'item.deleted'],
    });

    for (const body of [
      { url: 'ftp://example.com/x', event_types: ['*'] },
      { url: receiver.url, event_types: [] },
      { url: receiver.url, event_types: ['nope'] },
    ]) {
      expect((await http.post(`${rest}/webhooks`, { token, json: body })).status).toBe(422);
    }

    const ping = await http.post(`${rest}/webhooks/${id}/ping`, { token });
    expect(ping.status).toBe(202);
    expect(ping.body).toMatchObject({ event_type: 'webhook.ping', status: 'pending' });
    const delivered = await waitFor(async () => {
      const log = await http.get(`${rest}/webhooks/${id}/deliveries`, { token });
      return log.body.data?.[0]?.status === 'delivered' ? log.body.data[0] : undefined;
    });
    expect(delivered.attempts[0]).toMatchObject({ number: 1, status_code: 200, error: null });
    expect(receiver.verify(receiver.received.at(-1)!, created.body.secret)).toMatchObject({
      type: 'webhook.ping',
    });
    const again = await http.post(`${rest}/webhooks/${id}/deliveries/${delivered.id}/redeliver`, { token });
    expect(again.status).toBe(202);

    const rotated = await http.post(`${rest}/webhooks/${id}/rotate-secret`, {
      token,
      json: { overlap_seconds: 0 },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(created.body.secret);

    expect((await http.delete(`${rest}/webhooks/${id}`, { token: otherToken })).status).toBe(404);
    expect((await http.delete(`${rest}/webhooks/${id}`, { token })).status).toBe(204);
    expect((await http.get(`${rest}/webhooks/${id}`, { token })).status).toBe(404);
  });

  it('when a webhook points at a public name, then the stack (WEBHOOK_EGRESS=loopback) refuses its delivery without looking the name up', async () => {
    const created = await http.post(`${rest}/webhooks`, {
      token,
      json: { url: 'https://example.com/hooks', event_types: ['item.created'] },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    try {
      expect((await http.post(`${rest}/webhooks/${id}/ping`, { token })).status).toBe(202);
      const attempt = await waitFor(async () => {
        const log = await http.get(`${rest}/webhooks/${id}/deliveries`, { token });
        // The attempt is listed from its claim on; its outcome once recorded.
        const first = log.body.data?.[0]?.attempts?.[0];
        return first?.error ? first : undefined;
      });
      // Refused by the worker before any lookup: not a DNS failure (ENOTFOUND, EAI_AGAIN) from asking a resolver.
      expect(attempt).toMatchObject({
        number: 1,
        status_code: null,
        error: 'refused: example.com is not looked up: egress is loopback only (WEBHOOK_EGRESS=loopback)',
      });
    } finally {
      expect((await http.delete(`${rest}/webhooks/${id}`, { token })).status).toBe(204);
    }
  });
  it('when a webhook URL names no host as written or an inside IP literal, then REST (422) and GraphQL (BAD_USER_INPUT) name url, and nothing changes', async () => {
    const gql = `${stack.gatewayUrl}/graphql`;
    const create = `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } } }`;
    const update = `mutation($id: ID!, $input: UpdateWebhookInput!) { updateWebhook(id: $id, input: $input) { url } }`;
    const kept = await http.post(`${rest}/webhooks`, { token, json: { url: receiver.url, event_types: ['item.created'] } });
    expect(kept.status).toBe(201);
    const id = kept.body.id as number;
    try {
      const before = ((await http.get(`${rest}/webhooks`, { token })).body as unknown[]).length;
      for (const url of [
        'https:///x',
        'https:x',
        'https://@example.com/',
        'https://[::169.254.169.254]/latest/meta-data',
        'https://[::127.0.0.1]/',
        'https://[::ffff:10.0.0.1]/',
        'https://[::1:2:3:4]/',
        'https://[64:ff9b::a9fe:a9fe]/',
        'https://0xa9fea9fe/',
      ]) {
        const posted = await http.post(`${rest}/webhooks`, { token, json: { url, event_types: ['item.created'] } });
        expect({ url, status: posted.status }).toEqual({ url, status: 422 });
        expect(posted.body.detail).toContain('url');
        const patched = await http.patch(`${rest}/webhooks/${id}`, { token, json: { url } });
        expect({ url, status: patched.status }).toEqual({ url, status: 422 });
        expect(patched.body.detail).toContain('url');
        for (const [document, variables] of [
          [create, { input: { url, eventTypes: ['item.created'] } }],
          [update, { id: String(id), input: { url } }],
        ] as const) {
          const answered = await http.graphql(gql, document, variables, { token });
          expect(answered.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
          expect(answered.body.errors[0].message).toContain('url');
        }
      }
      expect((await http.get(`${rest}/webhooks`, { token })).body).toHaveLength(before);
      expect((await http.get(`${rest}/webhooks/${id}`, { token })).body.url).toBe(receiver.url);
    } finally {
      expect((await http.delete(`${rest}/webhooks/${id}`, { token })).status).toBe(204);
    }
  });
});
