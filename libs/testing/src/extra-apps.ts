/** Another facade beside the shared test stack: its own port and settings, the shared gateway behind it. */
import { join } from 'node:path';
import {
  freePort,
  productionMode,
  startApp,
  waitForHttpOk,
  withLogEnd,
  type AppName,
  type ManagedProcess,
} from '@platform/dev-stack';
import { testStack } from './test-stack';

export interface ExtraApp {
  url: string;
  port: number;
  process: ManagedProcess;
}

/**
 * What a test adds to `env` to run a process in development mode, for the development-only surfaces the production-mode
 * stack does not serve: the GraphiQL IDE on /graphql, introspection, per-request MongoDB command counts
 * (`extensions.mongoCommands`). The shared secrets stay the stack's, so it still talks to the shared processes.
 */
export const DEVELOPMENT_MODE: Readonly<Record<string, string>> = { NODE_ENV: 'development' };

/**
 * Starts one more process of `name` from dist/ against the shared stack (its secrets, FerretDB and, for rest, its
 * gateway) with `env` on top, and waits until /readyz answers. The caller stops it. `logName` names its log file
 * when several processes of one app log into the same dir. Production mode, as the stack, unless `env` says otherwise
 * (DEVELOPMENT_MODE).
 */
export async function startExtraApp(
  name: AppName,
  env: Record<string, string>,
  logDir: string,
  logName?: string,
): Promise<ExtraApp> {
  const stack = testStack();
  const port = await freePort();
  const process = startApp(name, {
    rootDir: stack.rootDir,
    logDir,
    ...(logName ? { logName } : {}),
    env: {
      ...productionMode(stack.subgraphSecret),
      LOG_LEVEL: 'warn',
      JWT_SECRET: stack.jwtSecret,
      MONGO_URL: stack.mongoUrl,
      GATEWAY_URL: `${stack.gatewayUrl}/graphql`,
      // A facade in either mode establishes its callers at the users and auth subgraphs (ADR 0019).
      ...Object.fromEntries(
        (['users', 'items', 'auth', 'posts'] as const).map((subgraph) => [
          `${subgraph.toUpperCase()}_SUBGRAPH_URL`,
          `${stack.urls[subgraph]}/graphql`,
        ]),
      ),
      // An extra facade goes through the shared gateway: what tests start one for is the facade's own layer (limits,
      // idempotency, error formats, versions), the same in both modes. A test of the embedded executor says
      // GATEWAY_MODE=embedded and gives the subgraph URLs.
      GATEWAY_MODE: 'remote',
      APOLLO_TELEMETRY_DISABLED: 'true',
      ...env,
      PORT: String(port),
    },
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttpOk(
      `${url}/readyz`,
      30_000,
      () => process.child.exitCode === null && process.child.signalCode === null,
    );
  } catch (error) {
    await process.stop('SIGKILL');
    await withLogEnd(error, name, join(logDir, `${logName ?? name}.log`));
    throw error;
  }
  return { url, port, process };
}
