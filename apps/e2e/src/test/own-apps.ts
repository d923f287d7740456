/** One more process of an app beside the shared stack (its own port, the stack's secret), started and ready. */
import { freePort, startApp, testStack, waitForHttpOk, type AppName, type ManagedProcess } from '@platform/testing';

export interface OwnApp {
  proc: ManagedProcess;
  /** `http://127.0.0.1:<port>` */
  base: string;
}

export async function startOwnApp(name: AppName, logDir: string, env: Record<string, string>): Promise<OwnApp> {
  const stack = testStack();
  const port = await freePort();
  const proc = startApp(name, {
    rootDir: stack.rootDir,
    logDir,
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      JWT_SECRET: stack.jwtSecret,
      APOLLO_TELEMETRY_DISABLED: 'true',
      PORT: String(port),
      ...env,
    },
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHttpOk(`${base}/readyz`, 30_000, () => proc.child.exitCode === null);
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return { proc, base };
}
