/**
 * Extra facade (and gateway) processes for the interface tests: the built `rest` started with another ERROR_FORMAT,
 * another gateway, or a low rate limit, beside the shared stack; each in its own log dir, stopped by the caller.
 */
import { join } from 'node:path';
import { freePort, makeTempDir, type ManagedProcess } from '@platform/dev-stack';
import { startExtraApp, testStack } from '@platform/testing';
import { issueTokens, registerAccount, type Account } from './accounts';

export const stack = testStack();
export { ADMIN, unique } from './accounts';

export interface ExtraProcess {
  url: string;
  process: ManagedProcess;
  /** Where its log file (`<name>.log`) is written. */
  logDir: string;
  stop(): Promise<void>;
}

const started: ExtraProcess[] = [];

/**
 * The environment the shared stack gives every process (libs/testing/src/jest/global-setup.ts; production mode and the
 * stack's secrets come from startExtraApp).
 */
function baseEnv(logDir: string): Record<string, string> {
  return {
    LOG_LEVEL: 'info',
    JWT_SECRET: stack.jwtSecret,
    MONGO_URL: stack.mongoUrl,
    APOLLO_TELEMETRY_DISABLED: 'true',
    DATA_DIR: join(logDir, 'data'),
    RATE_LIMIT_POINTS: '100000',
    LOGIN_RATE_LIMIT_POINTS: '100000',
    // As the shared stack (global-setup.ts): reads reach the subgraphs; the read cache has tests of its own.
    READ_CACHE: 'off',
  };
}

async function start(name: 'rest' | 'gateway', env: Record<string, string>): Promise<ExtraProcess> {
  const dir = makeTempDir(`interface-${name}-`);
  const { url, process } = await startExtraApp(name, { ...baseEnv(dir.path), ...env }, dir.path);
  const extra: ExtraProcess = {
    url,
    process,
    logDir: dir.path,
    stop: async () => {
      await process.stop('SIGTERM', 5_000);
      dir.remove();
    },
  };
  started.push(extra);
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

export const loginToken = async (
  restUrl: string,
  username: string,
  password: string,
  scope?: string,
): Promise<string> => (await issueTokens(restUrl, username, password, scope)).access_token;

export const registerUser = (restUrl: string, prefix = 'ifc'): Promise<Account> =>
  registerAccount(restUrl, prefix);
