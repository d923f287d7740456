/**
 * The delivery log through a facade with the read cache on is as fresh as the worker's writes: the facade keeps
 * subgraph answers under the generations of what they read (ADR 0017, 0019), and the deliveries worker writes the
 * events service's database itself (a try's claim and outcome, what is due, a webhook it disables), so it bumps those
 * generations as a subgraph does for its own writes. Read while a try is on its way, the log is read again once the
 * try is settled in the database and must show it at once, not the answer kept from before (the facade here keeps
 * answers for 10 minutes: only invalidation makes them fresh).
 */
import { MongoClient } from 'mongodb';
import { freePort } from '@platform/dev-stack';
import { http, startWebhookReceiver, suiteApps, testStack, type WebhookReceiver } from '@platform/testing';
import { issueTokens, registerAccount } from './test/accounts';
import { waitFor } from './test/events-support';

jest.setTimeout(90_000);

const stack = testStack();
const apps = suiteApps('log-fresh-');

describe('the delivery log after the worker wrote', () => {
  let rest: string;
  let metricsUrl: string;
  let token: string;
  let receiver: WebhookReceiver;
  let client: MongoClient;
  /** The facade's read-cache hits on the events subgraph so far. */
  const hits = async () => {
    const text = await (await fetch(metricsUrl)).text();
    const line = text.split('\n').find((l) => l.startsWith('read_cache_lookups_total{subgraph="events",result="hit"}'));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  beforeAll(async () => {
    // A facade with the read cache on (the shared stack runs it off), keeping answers for 10 minutes, on the shared
    // subgraphs, worker and Redis.
    const metricsPort = await freePort();
    rest = (
      await apps.start('rest', {
        GATEWAY_MODE: 'embedded',
        EVENTS_SUBGRAPH_URL: `${stack.urls['events']}/graphql`,
        REDIS_URL: stack.redisUrl,
        READ_CACHE: 'on',
        READ_CACHE_TTL_MS: '600000',
        METRICS_PORT: String(metricsPort),
        // Its own limits on the shared Redis and the shared client address: other suites' traffic is not this one's.
        RATE_LIMIT_POINTS: '100000',
      })
    ).url;
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    receiver = await startWebhookReceiver({ tls: stack.webhookTls });
    const owner = await registerAccount(rest, 'fresh');
    token = (await issueTokens(rest, owner.username, owner.password)).access_token;
    client = await MongoClient.connect(stack.mongoUrl);
  }, 90_000);
  afterAll(async () => {
    await client?.close();
    await receiver?.close();
  });

  it('when a ping is delivered, then the next read of the log shows it delivered, also after the log was read while it was pending', async () => {
    // The receiver holds its answer until the test has read the pending log twice (the second read is the kept one).
    let release: () => void = () => undefined;
    receiver.hold(new Promise<void>((resolve) => (release = resolve)));
    // Subscribed to its owner's own webhook.disabled only: other suites' writes on the shared stack (items created, ...)
    // deliver nothing to it, so its log holds the ping alone.
    const created = await http.post(`${rest}/webhooks`, { token, json: { url: receiver.url, event_types: ['webhook.disabled'] } });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    try {
      const ping = await http.post(`${rest}/webhooks/${id}/ping`, { token });
      expect(ping.status).toBe(202);
      await waitFor(async () => (receiver.received.length > 0 ? true : undefined));
      // Read twice, the second answered from the facade's cache. Other suites' deliveries on the shared stack move the
      // deliveries' generations too (a read right after one of them is fetched again), so the pair is read again until
      // the second is a kept answer: that is the stale copy the worker's writes must invalidate.
      const pending = await waitFor(async () => {
        const first = await http.get(`${rest}/webhooks/${id}/deliveries`, { token });
        expect(first.body.data?.[0]).toMatchObject({ status: 'pending', attempts: [{ number: 1, status_code: null }] });
        const before = await hits();
        const kept = await http.get(`${rest}/webhooks/${id}/deliveries`, { token });
        expect(kept.body).toEqual(first.body);
        return (await hits()) === before + 1 ? first : undefined; // the facade answered it from its cache
      }, 2_000, 'a kept answer of the pending log'); // well within the stack's WEBHOOK_TIMEOUT_MS (3 s) the try is held
      release();
      // Settled in the database: its try's outcome recorded and nothing due any more.
      const deliveryId = pending.body.data[0].id as string;
      const db = client.db('api_events');
      await waitFor(async () => {
        const outcome = await db.collection('webhook_attempts').findOne({ _id: `${deliveryId}.1.outcome` as never });
        const due = await db.collection('webhook_schedule').findOne({ _id: deliveryId as never });
        return outcome && !due ? true : undefined;
      });
      const settled = await http.get(`${rest}/webhooks/${id}/deliveries`, { token });
      expect(settled.body.data?.[0]).toMatchObject({ status: 'delivered', attempts: [{ number: 1, status_code: 200 }] });
    } finally {
      release();
      expect((await http.delete(`${rest}/webhooks/${id}`, { token })).status).toBe(204);
    }
  });
});
