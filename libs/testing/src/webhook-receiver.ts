/**
 * A real webhook endpoint for tests, on loopback only: records every request (headers and raw body), answers what the
 * test says (200 by default), and verifies deliveries with the `standardwebhooks` library, as a receiver would.
 */
import { readFileSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedDelivery {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedDelivery[];
  /** The status to answer the next request with (default 200). */
  respond: (status: (delivery: ReceivedDelivery) => number) => void;
  /** Answers nothing until `until` resolves (requests are recorded as they arrive). */
  hold: (until: Promise<void>) => void;
  /** The body verified with `secret` (throws WebhookVerificationError when tampered, stale or signed otherwise). */
  verify: (delivery: ReceivedDelivery, secret: string) => unknown;
  close(): Promise<void>;
}

export interface WebhookReceiverOptions {
  host?: string;
  port?: number;
  /** Serve https with this certificate (the test stacks' TestStack.webhookTls), as production endpoints must. */
  tls?: { certFile: string; keyFile: string };
}

export async function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const { host = '127.0.0.1', port = 0, tls } = options;
  const received: ReceivedDelivery[] = [];
  let status: (delivery: ReceivedDelivery) => number = () => 200;
  let held: Promise<void> = Promise.resolve();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const delivery = { at: Date.now(), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(delivery);
      void held.then(() => res.writeHead(status(delivery), { 'content-type': 'text/plain' }).end('ok'));
    });
  };
  const server: Server | TlsServer = tls
    ? createTlsServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, handler)
    : createServer(handler);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${bound}/hook`,
    port: bound,
    received,
    respond: (next) => {
      status = next;
    },
    hold: (until) => {
      held = until;
    },
    verify: (delivery, secret) =>
      new Webhook(secret).verify(delivery.body, {
        'webhook-id': String(delivery.headers['webhook-id']),
        'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
        'webhook-signature': String(delivery.headers['webhook-signature']),
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
