/** Free loopback ports, and waiting for a port or an HTTP endpoint to answer. */
import { createServer, connect } from 'node:net';

export function freePort(): Promise<number> {
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
