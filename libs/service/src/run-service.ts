/**
 * Listens, answers /healthz and /readyz, and shuts down gracefully, as the one owner of SIGTERM and SIGINT in every
 * process (Apollo Server's `stopOnTerminationSignals` is off wherever one is built): on a signal readiness turns false
 * (and, for `shutdownDelayMs`, requests are still served), the listener closes, in-flight requests finish
 * (answered with `Connection: close`), kept-alive connections close once idle, then `onShutdown` runs and the
 * process exits 0, or 1 if the grace period runs out.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '@platform/logging';
import { shutdownTracing } from '@platform/tracing';
import { setRouteLabel, stopRecording, trackHttpRequest } from '@platform/metrics';
import { settingsFromEnvironment } from '@platform/config';
import { listen } from './listen';
import { startMetricsListener, type MetricsListener } from './metrics-listener';

export interface ServiceOptions {
  name: string;
  host: string;
  port: number;
  logger: Logger;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Own dependencies reachable? Called per /readyz request, bounded by a 1 s timeout. */
  readiness?: () => Promise<boolean>;
  onShutdown?: () => Promise<void>;
  shutdownTimeoutMs: number;
  /** Keep serving (with readiness false) this long after the signal, so load balancers stop routing first. */
  shutdownDelayMs?: number;
  /** Exit the process after shutdown (services); tests that run a service in-process pass false. */
  exitOnShutdown?: boolean;
  requestTimeoutMs?: number;
  headersTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /** METRICS_PORT: Prometheus metrics on a listener of their own (never the public port); absent: none, nothing recorded. */
  metricsPort?: number | undefined;
  /**
   * The answer to a request Node's HTTP parser refuses before any handler runs (431: headers too large, 408: headers
   * too slow, 400: malformed), in the service's error shape. Absent: Node's own answer, status line only.
   */
  parserErrorBody?: (
    status: ParserErrorStatus,
    path: string | undefined,
  ) => { contentType: string; body: string; headers: Record<string, string> };
}

/** What Node's HTTP server answers to a request its parser refuses (Node's own choice per error code). */
export type ParserErrorStatus = 400 | 408 | 413 | 431;

const PARSER_ERROR_STATUS: Record<string, ParserErrorStatus> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

export interface RunningService {
  server: Server;
  port: number;
  url: string;
  /** Where the metrics listener serves `/metrics`, when one was asked for. */
  metricsUrl: string | undefined;
  isReady(): boolean;
  stop(): Promise<void>;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/**
 * While draining, a kept-alive connection is closed only after it has been idle this long. A client that has
 * just received a response may already have its next request on the wire; closing that connection would reset
 * the request, so it is served instead (with `Connection: close`).
 */
const DRAIN_IDLE_GRACE_MS = 1_000;

export async function runService(options: ServiceOptions): Promise<RunningService> {
  const { logger } = options;
  if (options.metricsPort === undefined) stopRecording();
  let draining = false;
  // Per connection: requests in progress and when it last went idle (for the drain's idle sweep).
  const connections = new Map<Socket, { active: number; idleSince: number }>();

  // Node checks requestTimeout / headersTimeout only every connectionsCheckingInterval (30 s by default): check often
  // enough that a client trickling its request is cut off close to the configured timeout.
  const connectionsCheckingInterval = Math.max(
    250,
    Math.min(5_000, Math.floor((options.requestTimeoutMs ?? 30_000) / 4)),
  );
  const server = createServer({ connectionsCheckingInterval }, (req, res) => {
    trackHttpRequest(req, res);
    const connection = connections.get(req.socket);
    if (connection) {
      connection.active += 1;
      res.once('close', () => {
        connection.active -= 1;
        connection.idleSince = Date.now();
      });
    }
    if (draining) res.setHeader('connection', 'close');
    const path = req.url === undefined ? '/' : req.url.split('?', 1)[0];
    if ((req.method === 'GET' || req.method === 'HEAD') && path === '/healthz') {
      setRouteLabel(res, '/healthz');
      res.writeHead(200, JSON_HEADERS).end(req.method === 'HEAD' ? undefined : '{"status":"ok"}');
      return;
    }
    if ((req.method === 'GET' || req.method === 'HEAD') && path === '/readyz') {
      setRouteLabel(res, '/readyz');
      void checkReady().then((ready) => {
        res
          .writeHead(ready ? 200 : 503, JSON_HEADERS)
          .end(req.method === 'HEAD' ? undefined : JSON.stringify({ status: ready ? 'ready' : 'not ready' }));
      });
      return;
    }
    options.handler(req, res);
  });
  if (options.parserErrorBody) answerParserErrors(server, options.parserErrorBody);
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { active: 0, idleSince: Date.now() });
    socket.once('close', () => connections.delete(socket));
  });
  server.requestTimeout = options.requestTimeoutMs ?? 30_000;
  // Node enforces requestTimeout only when headersTimeout is not longer than it.
  server.headersTimeout = Math.min(options.headersTimeoutMs ?? 10_000, server.requestTimeout);
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 65_000;

  async function checkReady(): Promise<boolean> {
    if (draining) return false;
    if (!options.readiness) return true;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        options.readiness(),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), 1_000);
        }),
      ]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  await listen(server, options.port, options.host);
  const port = (server.address() as AddressInfo).port;
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  let metrics: MetricsListener | undefined;
  if (options.metricsPort !== undefined) {
    try {
      metrics = await startMetricsListener({ host: options.host, port: options.metricsPort });
    } catch (error) {
      server.close();
      throw error;
    }
  }
  // Which settings took effect from the environment (names only), so a deployment can see that its variables arrived.
  logger.info(
    {
      url,
      ...(metrics ? { metricsUrl: metrics.url } : {}),
      settingsFromEnvironment: settingsFromEnvironment(),
    },
    `${options.name} listening`,
  );

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      draining = true;
      logger.info(`${options.name} draining`);
      if (options.shutdownDelayMs) await new Promise((r) => setTimeout(r, options.shutdownDelayMs));
      // Stop accepting connections. net.Server's close, not http.Server's: the latter also drops every idle
      // kept-alive connection at once, resetting any request that is on its way on one of them.
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      const closeIdle = () => {
        const now = Date.now();
        for (const [socket, connection] of connections) {
          if (connection.active === 0 && now - connection.idleSince >= DRAIN_IDLE_GRACE_MS) socket.destroy();
        }
      };
      closeIdle();
      const idleSweep = setInterval(closeIdle, 50);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        closed.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), options.shutdownTimeoutMs);
        }),
      ]);
      clearTimeout(timer);
      clearInterval(idleSweep);
      if (timedOut) {
        logger.warn(`${options.name}: grace period over, closing remaining connections`);
        server.closeAllConnections();
      }
      try {
        await options.onShutdown?.();
      } catch (error) {
        logger.error({ err: error }, 'shutdown hook failed');
      }
      await metrics?.close();
      // Spans still buffered are sent before the process exits.
      await shutdownTracing().catch((error: unknown) =>
        logger.warn({ err: error }, 'trace export at shutdown failed'),
      );
      logger.info(`${options.name} stopped`);
      if (options.exitOnShutdown ?? true) {
        logger.flush();
        process.exitCode = timedOut ? 1 : 0;
        setImmediate(() => process.exit());
      }
    })();
    return stopping;
  };

  if (options.exitOnShutdown ?? true) {
    // The one owner of the termination signals (Apollo Server's own handling is off wherever one is built): a
    // listener stays for every later signal too, so a repeated one cannot fall back to Node's default (exit 128+n,
    // dropping the requests still being answered); the drain's grace period bounds how long it all takes.
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.on(signal, () => {
        if (stopping) {
          logger.info({ signal }, 'signal received while stopping');
          return;
        }
        logger.info({ signal }, 'signal received');
        void stop();
      });
    }
  }

  return { server, port, url, metricsUrl: metrics?.url, isReady: () => !draining, stop };
}

/**
 * Node's `clientError`: the request never reached a handler, so the answer is written to the socket (what Node itself
 * does, status line only), here with the service's error body. A socket already answering a pipelined request, or gone,
 * is only destroyed.
 */
function answerParserErrors(server: Server, render: NonNullable<ServiceOptions['parserErrorBody']>): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // The response of a request on this connection that a handler is still answering, if any.
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    if (inFlight && !timedOut) {
      // A malformed request pipelined behind one still being answered: that answer goes out first (responses keep
      // the requests' order, RFC 9112 §9.3.2), then the connection closes; the bad request gets none.
      const close = () => (socket as Socket).destroySoon();
      inFlight.once('finish', close).once('close', close);
      return;
    }
    try {
      const status = PARSER_ERROR_STATUS[error.code ?? ''] ?? 400;
      // The path names the problem's `instance`: the timed-out request's, or the refused request line's when the
      // parser got that far.
      const path = timedOut
        ? ((inFlight?.req as { originalUrl?: string } | undefined)?.originalUrl ?? inFlight?.req?.url)
        : /^[A-Z]{1,16} (\/[^\s]*)/.exec(
            (error as NodeJS.ErrnoException & { rawPacket?: Buffer }).rawPacket?.subarray(0, 2_100).toString('latin1') ??
              '',
          )?.[1];
      const instance = path === undefined ? undefined : /^\/[\x21-\x3e\x40-\x7e]{0,2047}/.exec(path)?.[0];
      const { contentType, body, headers } = render(status, instance);
      const fields = { ...headers, 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) };
      const head = Object.entries(fields)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      // Then the connection goes, as with Node's own answer: the server's side is half-open and its timeouts are off,
      // so a client that keeps its end open (a slow-loris) would otherwise hold the socket and the request for good.
      socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nconnection: close\r\n${head}\r\n${body}`);
      (socket as Socket).destroySoon();
    } catch {
      // An event handler that throws would take the process down: the connection goes without an answer instead.
      socket.destroy();
    }
  });
}
