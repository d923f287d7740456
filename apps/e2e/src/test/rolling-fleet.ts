/**
 * Replicas of the apps as real processes behind one HTTP balancer per app (what a Kubernetes Service with a mesh, or an
 * ingress, does: each request to any replica currently in rotation), rolled one replica at a time the way a
 * Deployment rolls (maxSurge 1, maxUnavailable 0): start the new one, wait for /readyz, let old and new serve side by
 * side, take the old one out of rotation, wait until nothing is in flight to it, SIGTERM it.
 *
 * The balancer is an HTTP (layer 7) proxy on purpose: a layer 4 one would pin each kept-alive connection to one
 * replica, so the facade's pooled connections would never meet the other side of a rotation, and a closing replica's
 * idle connections would race new requests (a shutdown question, not a secrets one).
 */
import { request as httpRequest, createServer, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort, startApp, waitForHttpOk, type AppName, type ManagedProcess } from '@platform/dev-stack';

export interface Balancer {
  url: string;
  /** Puts a replica (its base URL) into rotation. */
  add(target: string): void;
  /** Takes it out of rotation; resolves once no request to it is in flight. */
  remove(target: string): Promise<void>;
  /** Requests forwarded per replica so far. */
  served: Map<string, number>;
  close(): Promise<void>;
}

export async function startBalancer(): Promise<Balancer> {
  const targets: string[] = [];
  const inFlight = new Map<string, number>();
  const served = new Map<string, number>();
  const drained = new Map<string, () => void>();
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let next = 0;

  const done = (target: string) => {
    const count = (inFlight.get(target) ?? 1) - 1;
    inFlight.set(target, count);
    if (count === 0) drained.get(target)?.();
  };

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    if (targets.length === 0) {
      res.writeHead(503).end();
      return;
    }
    const target = targets[next++ % targets.length]!;
    inFlight.set(target, (inFlight.get(target) ?? 0) + 1);
    served.set(target, (served.get(target) ?? 0) + 1);
    const url = new URL(target);
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      done(target);
    };
    const upstream = httpRequest(
      { host: url.hostname, port: url.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', finish);
        answer.on('error', finish);
      },
    );
    upstream.on('error', () => {
      finish();
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  };

  const server = createServer(forward);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    add: (target) => {
      if (!targets.includes(target)) targets.push(target);
    },
    remove: (target) => {
      const index = targets.indexOf(target);
      if (index >= 0) targets.splice(index, 1);
      if ((inFlight.get(target) ?? 0) === 0) return Promise.resolve();
      return new Promise((resolve) => drained.set(target, resolve));
    },
    close: () =>
      new Promise((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Replica {
  app: AppName;
  url: string;
  process: ManagedProcess;
}

/** One process of `app` from dist/ with `env` on a free port, waited for until /readyz answers 200. */
export async function startReplica(
  rootDir: string,
  app: AppName,
  env: Record<string, string>,
  logDir: string,
  logName: string,
): Promise<Replica> {
  const port = await freePort();
  const child = startApp(app, { rootDir, logDir, logName, env: { ...env, PORT: String(port) } });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttpOk(
      `${url}/readyz`,
      90_000,
      () => child.child.exitCode === null && child.child.signalCode === null,
    );
  } catch (error) {
    await child.stop('SIGKILL');
    throw error;
  }
  return { app, url, process: child };
}

/**
 * Replaces each replica of `replicas` (in place) by one `start` makes, one at a time: the new one joins the rotation,
 * both serve for `sideBySideMs`, then the old one leaves it, drains, and is stopped with SIGTERM.
 */
export async function rollReplicas(
  balancer: Balancer,
  replicas: Replica[],
  start: (index: number) => Promise<Replica>,
  sideBySideMs: number,
): Promise<void> {
  for (let index = 0; index < replicas.length; index++) {
    const old = replicas[index]!;
    const fresh = await start(index);
    balancer.add(fresh.url);
    await new Promise((resolve) => setTimeout(resolve, sideBySideMs));
    await balancer.remove(old.url);
    await old.process.stop('SIGTERM', 15_000);
    replicas[index] = fresh;
  }
}
