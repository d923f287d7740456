/**
 * The metrics listener: Prometheus text on `GET /metrics` at METRICS_PORT, a listener of its own so the public port
 * (and so the Ingress) never serves it, bound to HOST like the public one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectProcessMetrics, registry } from '@platform/metrics';
import { listen } from './listen';

export interface MetricsListener {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startMetricsListener(options: { host: string; port: number }): Promise<MetricsListener> {
  collectProcessMetrics();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
    );
  });
  // A scrape is short; nothing should hold this listener's sockets open at shutdown.
  server.keepAliveTimeout = 5_000;
  await listen(server, options.port, options.host);
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/metrics`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
