/** Free loopback ports, and waiting for a port or an HTTP endpoint to answer. */
import { readFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';

/**
 * A loopback port nothing listens on, for a process about to be started. Chosen below the kernel's ephemeral range
 * (`ip_local_port_range`, where every outgoing connection takes its local port): a port the kernel handed out from
 * that range (`listen(0)`) could be taken by some client's connection before the process binds it, which made a
 * process of a busy test run exit with EADDRINUSE now and then.
 *
 * A chosen port stays free only until someone binds it, and a system asks for a dozen before its first process
 * listens. So one module instance (a process; in jest, a test file) hands out no port twice until it has walked its
 * whole range from a random start, and each jest worker walks a slice of the range of its own (`JEST_WORKER_ID`, 16
 * slices: more workers than that share them), so two workers starting systems at the same time cannot pick the same
 * port either. Each port is tried by binding it; the kernel's own choice where the range leaves
 * no room below it.
 */
export async function freePort(): Promise<number> {
  const range = portRange(process.env['JEST_WORKER_ID']);
  if (range.high - range.low < 50) return listenAny();
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = nextPort(range);
    if (await canListen(port)) return port;
  }
  return listenAny();
}

const WORKER_SLICES = 16;

/** The ports this process hands out: below the ephemeral range; a jest worker's slice of it when it is one. */
export function portRange(workerId: string | undefined): { low: number; high: number } {
  const low = 20_000;
  const high = ephemeralStart() - 1;
  const worker = Number(workerId);
  if (!Number.isInteger(worker) || worker < 1) return { low, high };
  const size = Math.floor((high - low + 1) / WORKER_SLICES);
  const slice = (worker - 1) % WORKER_SLICES;
  return { low: low + slice * size, high: low + (slice + 1) * size - 1 };
}

let cursor: number | undefined;

function nextPort(range: { low: number; high: number }): number {
  const size = range.high - range.low + 1;
  if (cursor === undefined || cursor < range.low || cursor > range.high) {
    cursor = range.low + Math.floor(Math.random() * size);
  }
  const port = cursor;
  cursor = cursor === range.high ? range.low : cursor + 1;
  return port;
}

function ephemeralStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > 0 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function listenAny(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Polls `attempt` every `intervalMs` until it answers true or `timeoutMs` pass; fails at once when the process behind
 * `what` is no longer alive. Otherwise `attempt` says why `what` is not there yet, for the timeout's message.
 */
async function pollUntil(
  what: string,
  timeoutMs: number,
  intervalMs: number,
  isAlive: () => boolean,
  attempt: () => Promise<true | string>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`process behind ${what} exited before it was ready`);
    const answer = await attempt();
    if (answer === true) return;
    last = answer;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`${what} not ready within ${timeoutMs} ms (${last})`);
}

export async function waitForPort(
  port: number,
  timeoutMs: number,
  isAlive: () => boolean = () => true,
): Promise<void> {
  const connects = () =>
    new Promise<true | string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', (error) => resolve(error.message));
    });
  await pollUntil(`port ${port}`, timeoutMs, 100, isAlive, connects);
}

export async function waitForHttpOk(
  url: string,
  timeoutMs: number,
  isAlive: () => boolean = () => true,
): Promise<void> {
  await pollUntil(url, timeoutMs, 150, isAlive, async () => {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      return response.ok ? true : `HTTP ${response.status}`;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  });
}
