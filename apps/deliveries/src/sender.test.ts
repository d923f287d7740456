/**
 * The sender against real endpoints on loopback only (no request leaves the machine): loopback is refused without
 * the development allowance, whether named by address or by a name that resolves there; with it, the connection goes
 * to the address the check saw (the name is resolved by the test's resolver only: the system resolver could not
 * answer `hooks.invalid`); no redirect is followed; slow endpoints time out; oversized answers are cut; production
 * sends only to https; during a rotation both secrets sign, each verifiable with the `standardwebhooks` library.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWebhookReceiver, type WebhookReceiver } from '@platform/testing';
import { newSigningSecret } from '@platform/events';
import { Webhook } from 'standardwebhooks';
import { WebhookSender, type SenderOptions } from './sender';
import { NOT_PUBLIC, type Resolver } from './egress';

const message = (secrets: string[]) => ({
  id: 'evt_01JTEST0000000000000000000',
  timestamp: new Date(),
  body: '{"type":"item.created"}',
  secrets,
});

const loopbackResolver =
  (calls: string[]): Resolver =>
  async (hostname) => {
    calls.push(hostname);
    return [{ address: '127.0.0.1', family: 4 }];
  };

const options = (overrides: Partial<SenderOptions> = {}): SenderOptions => ({
  policy: { allowLoopback: false },
  resolver: loopbackResolver([]),
  timeoutMs: 1_000,
  maxResponseBytes: 1_024,
  httpsOnly: false,
  ...overrides,
});

describe('webhook sender', () => {
  let receiver: WebhookReceiver;
  const senders: WebhookSender[] = [];
  const sender = (overrides: Partial<SenderOptions> = {}) => {
    const made = new WebhookSender(options(overrides));
    senders.push(made);
    return made;
  };
  const servers: Server[] = [];
  const server = async (handler: Parameters<typeof createServer>[1]) => {
    const made = createServer(handler);
    await new Promise<void>((resolve) => made.listen(0, '127.0.0.1', resolve));
    servers.push(made);
    return `http://127.0.0.1:${(made.address() as AddressInfo).port}/`;
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await Promise.all(senders.map((s) => s.close()));
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await receiver.close();
  });

  it('when loopback is not allowed, then an endpoint on 127.0.0.1, [::1] or a name resolving there gets nothing', async () => {
    const strict = sender();
    const before = receiver.received.length;
    for (const url of [
      receiver.url,
      `http://[::1]:${receiver.port}/hook`,
      `http://hooks.invalid:${receiver.port}/hook`,
    ]) {
      const result = await strict.send(url, message([newSigningSecret()]));
      expect(result).toMatchObject({ ok: false, refused: true, statusCode: null });
      // The owner's log says neither the address nor its range; the worker's log does.
      expect(result.error).toBe(NOT_PUBLIC);
      expect(result.detail).toMatch(/refused: .* \(loopback\) is not a public address/);
    }
    expect(receiver.received.length).toBe(before);
  });

  it('when loopback is allowed, then a name is resolved once by the checked resolver and the delivery arrives there', async () => {
    const calls: string[] = [];
    const result = await sender({ policy: { allowLoopback: true }, resolver: loopbackResolver(calls) }).send(
      `http://hooks.invalid:${receiver.port}/hook`,
      message([newSigningSecret()]),
    );
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(calls).toEqual(['hooks.invalid']);
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe('evt_01JTEST0000000000000000000');
  });

  it('when the endpoint redirects, then the redirect is not followed and the attempt fails', async () => {
    const target = await startWebhookReceiver();
    const redirecting = await server((_req, res) => res.writeHead(307, { location: target.url }).end());
    const result = await sender({ policy: { allowLoopback: true } }).send(
      redirecting,
      message([newSigningSecret()]),
    );
    expect(result).toMatchObject({ ok: false, statusCode: 307, error: 'redirect not followed' });
    expect(target.received).toHaveLength(0);
    await target.close();
  });

  it('when the endpoint does not answer in time, then the attempt times out', async () => {
    const silent = await server(() => undefined);
    const started = Date.now();
    const result = await sender({ policy: { allowLoopback: true }, timeoutMs: 500 }).send(
      silent,
      message([newSigningSecret()]),
    );
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(result.error).toMatch(/timed out|Timeout/i);
    expect(Date.now() - started).toBeLessThan(15_000); // 500 ms, with room for a loaded machine
  });

  it('when the answer is larger than the cap, then it is cut and not read', async () => {
    const chatty = await server((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(Buffer.alloc(200_000, 'x'));
    });
    const result = await sender({ policy: { allowLoopback: true } }).send(
      chatty,
      message([newSigningSecret()]),
    );
    expect(result).toMatchObject({ ok: false, statusCode: 500, error: 'response larger than 1024 bytes' });
  });

  it('when running in production, then an http URL is refused', async () => {
    const result = await sender({ policy: { allowLoopback: true }, httpsOnly: true }).send(
      receiver.url,
      message([newSigningSecret()]),
    );
    expect(result).toMatchObject({ ok: false, refused: true, error: 'refused: only https endpoints' });
  });

  it('when two secrets are live (a rotation), then both sign and each verifies with standardwebhooks', async () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const result = await sender({ policy: { allowLoopback: true } }).send(
      receiver.url,
      message([current, previous]),
    );
    expect(result.ok).toBe(true);
    const delivery = receiver.received.at(-1)!;
    expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(receiver.verify(delivery, current)).toEqual({ type: 'item.created' });
    expect(receiver.verify(delivery, previous)).toEqual({ type: 'item.created' });
    expect(() => receiver.verify(delivery, newSigningSecret())).toThrow();
    expect(() =>
      new Webhook(current).verify(`${delivery.body} `, delivery.headers as Record<string, string>),
    ).toThrow();
  });
});
