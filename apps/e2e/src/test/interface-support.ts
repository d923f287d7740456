/**
 * Extra facade (and gateway) processes for the interface tests: the built `rest` started with another ERROR_FORMAT,
 * another gateway, or a low rate limit, beside the shared stack; each in its own log dir, stopped by the caller.
 */
import { join } from 'node:path';
import {
  freePort,
  http,
  makeTempDir,
  startApp,
  testStack,
  waitForHttpOk,
  type ManagedProcess,
} from '@platform/testing';

export const stack = testStack();
export const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

export interface ExtraProcess {
  url: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

const started: ExtraProcess[] = [];

/** The environment the shared stack gives every process (libs/testing/src/jest/global-setup.ts). */
function baseEnv(logDir: string): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    JWT_SECRET: stack.jwtSecret,
    MONGO_URL: stack.mongoUrl,
    APOLLO_TELEMETRY_DISABLED: 'true',
    DATA_DIR: join(logDir, 'data'),
    RATE_LIMIT_POINTS: '100000',
    LOGIN_RATE_LIMIT_POINTS: '100000',
  };
}

async function start(name: 'rest' | 'gateway', env: Record<string, string>): Promise<ExtraProcess> {
  const dir = makeTempDir(`interface-${name}-`);
  const port = await freePort();
  const process = startApp(name, {
    rootDir: stack.rootDir,
    env: { ...baseEnv(dir.path), ...env, PORT: String(port) },
    logDir: dir.path,
  });
  const url = `http://127.0.0.1:${port}`;
  const extra: ExtraProcess = {
    url,
    process,
    stop: async () => {
      await process.stop('SIGTERM', 5_000);
      dir.remove();
    },
  };
  started.push(extra);
  await waitForHttpOk(
    `${url}/healthz`,
    30_000,
    () => process.child.exitCode === null && process.child.signalCode === null,
  );
  return extra;
}

/** A facade with its own settings; GATEWAY_URL defaults to the shared gateway. */
export const startRest = (env: Record<string, string>, options: { sharedRedis?: boolean } = {}) =>
  start('rest', {
    GATEWAY_URL: `${stack.gatewayUrl}/graphql`,
    // Without Redis the process limits on its own, so a low RATE_LIMIT_POINTS is not shared with other processes.
    ...((options.sharedRedis ?? true) && stack.redisUrl ? { REDIS_URL: stack.redisUrl } : {}),
    ...env,
  });

/** A gateway over the shared subgraphs, with some of their URLs replaced (e.g. by a closed port). */
export const startGateway = (subgraphUrls: Partial<Record<'users' | 'items' | 'auth' | 'posts', string>>) =>
  start('gateway', {
    USERS_SUBGRAPH_URL: `${stack.urls['users']}/graphql`,
    ITEMS_SUBGRAPH_URL: `${stack.urls['items']}/graphql`,
    AUTH_SUBGRAPH_URL: `${stack.urls['auth']}/graphql`,
    POSTS_SUBGRAPH_URL: `${stack.urls['posts']}/graphql`,
    ...Object.fromEntries(
      Object.entries(subgraphUrls).map(([name, url]) => [`${name.toUpperCase()}_SUBGRAPH_URL`, url]),
    ),
  });

export async function stopAll(): Promise<void> {
  await Promise.all(started.splice(0).map((p) => p.stop()));
}

/** A URL on which nothing listens (a port taken and released). */
export const closedUrl = async (path = '/graphql') => `http://127.0.0.1:${await freePort()}${path}`;

export const ADMIN = { username: 'admin', password: 'admin-password-1' };

export async function loginToken(
  restUrl: string,
  username: string,
  password: string,
  scope?: string,
): Promise<string> {
  const response = await http.post(`${restUrl}/token`, {
    form: { username, password, ...(scope ? { scope } : {}) },
  });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${response.text}`);
  return response.body.access_token as string;
}

export async function registerUser(
  restUrl: string,
  prefix = 'ifc',
): Promise<{ id: number; username: string; email: string; password: string }> {
  const username = `${prefix}${unique()}`;
  const account = { username, email: `${username}@example.com`, password: `pw-${unique()}-9` };
  const response = await http.post(`${restUrl}/users/`, { json: account });
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${response.text}`);
  return { ...account, id: response.body.id as number };
}
