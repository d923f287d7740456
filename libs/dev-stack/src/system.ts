/**
 * Starts the six processes from dist/ (built by tools/build.mjs) against given MongoDB and Redis URLs, waits for
 * every /readyz, and stops them in reverse order. Shared by `npm start`, jest's globalSetup and the benchmark.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startProcess, type ManagedProcess } from './managed-process';
import { freePort, waitForHttpOk } from './ports';

export const SUBGRAPH_NAMES = ['users', 'items', 'auth', 'posts', 'events'] as const;
/** Processes that serve no API: the webhook delivery worker (started after the subgraphs, stopped with them). */
export const WORKER_NAMES = ['deliveries'] as const;
export const APP_NAMES = [...SUBGRAPH_NAMES, ...WORKER_NAMES, 'gateway', 'rest'] as const;
export type AppName = (typeof APP_NAMES)[number];

export const DEFAULT_PORTS: Record<AppName, number> = {
  rest: 3000,
  gateway: 4000,
  users: 4001,
  items: 4002,
  auth: 4003,
  posts: 4004,
  events: 4005,
  deliveries: 4006,
};

/** Each process's METRICS_PORT default (its environment.ts; README.md#configuration). */
export const DEFAULT_METRICS_PORTS: Record<AppName, number> = {
  rest: 9300,
  gateway: 9400,
  users: 9401,
  items: 9402,
  auth: 9403,
  posts: 9404,
  events: 9405,
  deliveries: 9406,
};

export interface SystemOptions {
  rootDir: string;
  mongoUrl: string;
  redisUrl?: string | undefined;
  jwtSecret: string;
  /** Fixed ports (npm start) or free ones (tests). */
  ports?: Partial<Record<AppName, number>>;
  /** Fixed metrics ports (npm start); with freePorts, free ones. */
  metricsPorts?: Partial<Record<AppName, number>>;
  freePorts?: boolean;
  /** Extra environment for every process, and per process. */
  env?: Record<string, string>;
  envFor?: Partial<Record<AppName, Record<string, string>>>;
  logDir?: string;
  readyTimeoutMs?: number;
}

export interface RunningSystem {
  urls: Record<AppName, string>;
  ports: Record<AppName, number>;
  /** Where each process serves Prometheus metrics (`http://127.0.0.1:<METRICS_PORT>/metrics`). */
  metricsUrls: Record<AppName, string>;
  processes: Map<AppName, ManagedProcess>;
  env: Record<string, string>;
  stop(): Promise<void>;
}

export function appEnvironment(
  name: AppName,
  ports: Record<AppName, number>,
  base: Record<string, string>,
): Record<string, string> {
  const url = (app: AppName) => `http://127.0.0.1:${ports[app]}/graphql`;
  return {
    ...base,
    PORT: String(ports[name]),
    USERS_SUBGRAPH_URL: url('users'),
    ITEMS_SUBGRAPH_URL: url('items'),
    AUTH_SUBGRAPH_URL: url('auth'),
    POSTS_SUBGRAPH_URL: url('posts'),
    EVENTS_SUBGRAPH_URL: url('events'),
    GATEWAY_URL: url('gateway'),
  };
}

export function startApp(
  name: AppName,
  options: {
    rootDir: string;
    env: Record<string, string>;
    logDir?: string | undefined;
    logName?: string;
    /** Command-line arguments after the script (e.g. a subgraph's `--create-indexes`). */
    args?: string[];
  },
): ManagedProcess {
  const script = join(options.rootDir, 'dist', 'apps', name, 'main.js');
  return startProcess(name, process.execPath, ['--enable-source-maps', script, ...(options.args ?? [])], {
    cwd: options.rootDir,
    // METRICS_PORT 0 (any free port) unless given: a process started here never takes another's default metrics port.
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      METRICS_PORT: '0',
      ...options.env,
    },
    logFile: options.logDir ? join(options.logDir, `${options.logName ?? name}.log`) : undefined,
  });
}

/**
 * Adds the end of a process's log to the error of its failed start (what it said before it went: the one clue to a
 * taken port or a refused setting).
 */
export async function withLogEnd(error: unknown, name: string, logFile: string): Promise<void> {
  const log = await readFile(logFile, 'utf8').catch(() => '');
  if (error instanceof Error && log) error.message += `\n${name}'s log ends:\n${log.slice(-2_000)}`;
}

/** A shared secret as a deployment would generate one (48 random bytes; production requires at least 32). */
export const generatedSecret = (): string => randomBytes(48).toString('base64url');

/**
 * How the tests (and the Schemathesis bench) run every process: as production does (NODE_ENV=production:
 * introspection and the IDE off, masked suggestions, no command counts, the shared secrets and MongoDB's production
 * checks required), with the given SUBGRAPH_SECRET (JWT_SECRET is startSystem's `jwtSecret`) and a WEBHOOK_SECRETS_KEY
 * of its own, derived from it so that every process given the same SUBGRAPH_SECRET (the stack, a test's extra
 * process) opens the same sealed webhook secrets. The one concession is the single FerretDB, a standalone server
 * (MONGO_ALLOW_STANDALONE, ADR 0026). And one narrowing: webhook deliveries reach loopback only, with no DNS lookup
 * (WEBHOOK_EGRESS=loopback), so an endpoint a test or Schemathesis registers at a public name sends nothing off the
 * machine.
 */
export const productionMode = (subgraphSecret: string): Record<string, string> => ({
  NODE_ENV: 'production',
  SUBGRAPH_SECRET: subgraphSecret,
  WEBHOOK_SECRETS_KEY: createHash('sha256')
    .update(`webhook-secrets-key\n${subgraphSecret}`)
    .digest('base64url'),
  MONGO_ALLOW_STANDALONE: 'true',
  WEBHOOK_EGRESS: 'loopback',
});

/**
 * The settings of a whole system a test starts for itself (beside the shared stack): production mode with a
 * SUBGRAPH_SECRET of its own (in the returned settings), quiet logs, its own data dir, limits out of the way, and a
 * bootstrap admin the test knows.
 */
export const ownSystemEnv = (
  dataDir: string,
  admin: { username: string; password: string },
): Record<string, string> => ({
  ...productionMode(generatedSecret()),
  LOG_LEVEL: 'warn',
  DATA_DIR: dataDir,
  RATE_LIMIT_POINTS: '100000',
  LOGIN_RATE_LIMIT_POINTS: '100000',
  BOOTSTRAP_ADMIN_USERNAME: admin.username,
  BOOTSTRAP_ADMIN_PASSWORD: admin.password,
});

export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  const ports = { ...DEFAULT_PORTS } as Record<AppName, number>;
  for (const name of APP_NAMES) {
    ports[name] = options.ports?.[name] ?? (options.freePorts ? await freePort() : DEFAULT_PORTS[name]);
  }
  const metricsPorts = { ...DEFAULT_METRICS_PORTS };
  for (const name of APP_NAMES) {
    metricsPorts[name] =
      options.metricsPorts?.[name] ?? (options.freePorts ? await freePort() : DEFAULT_METRICS_PORTS[name]);
  }
  const metricsUrls = Object.fromEntries(
    APP_NAMES.map((n) => [n, `http://127.0.0.1:${metricsPorts[n]}/metrics`]),
  ) as Record<AppName, string>;
  const base: Record<string, string> = {
    NODE_ENV: 'development',
    MONGO_URL: options.mongoUrl,
    JWT_SECRET: options.jwtSecret,
    APOLLO_TELEMETRY_DISABLED: 'true',
    ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
    ...options.env,
  };
  const processes = new Map<AppName, ManagedProcess>();
  const urls = Object.fromEntries(APP_NAMES.map((n) => [n, `http://127.0.0.1:${ports[n]}`])) as Record<
    AppName,
    string
  >;
  const timeout = options.readyTimeoutMs ?? 60_000;

  const stop = async () => {
    for (const group of [['rest'], ['gateway'], [...WORKER_NAMES], [...SUBGRAPH_NAMES]] as AppName[][]) {
      await Promise.all(group.map((name) => processes.get(name)?.stop('SIGTERM', 10_000)));
    }
  };

  const launch = async (group: readonly AppName[]) => {
    for (const name of group) {
      processes.set(
        name,
        startApp(name, {
          rootDir: options.rootDir,
          env: {
            ...appEnvironment(name, ports, base),
            METRICS_PORT: base['METRICS_PORT'] === 'off' ? 'off' : String(metricsPorts[name]),
            ...options.envFor?.[name],
          },
          logDir: options.logDir,
        }),
      );
    }
    await Promise.all(
      group.map((name) => {
        const proc = processes.get(name)!;
        return waitForHttpOk(
          `${urls[name]}/readyz`,
          timeout,
          () => proc.child.exitCode === null && proc.child.signalCode === null,
        ).catch(async (error: unknown) => {
          if (options.logDir) await withLogEnd(error, name, join(options.logDir, `${name}.log`));
          throw error;
        });
      }),
    );
  };

  try {
    await launch(SUBGRAPH_NAMES);
    await launch(WORKER_NAMES);
    await launch(['gateway']);
    await launch(['rest']);
  } catch (error) {
    await stop();
    throw error;
  }
  return { urls, ports, metricsUrls, processes, env: base, stop };
}
