/**
 * `npm start` brings the whole system up on loopback, every documented setting reaches the process that reads it, and
 * SIGINT leaves no process behind (FerretDB included). One launcher start: it is slow.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { APP_NAMES, freePort, makeTempDir, waitForHttpOk } from '@platform/dev-stack';
import { http, testStack } from '@platform/testing';
import { documentedVariables, variablesByProcess } from './launcher-variables';

const stack = testStack();

function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const [child, ppid] of rows) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * A valid value other than the default for each variable of README's configuration table that the caller sets. The
 * launcher sets the rest per process from its own knobs, and differently from the defaults too: PORT and METRICS_PORT
 * (<APP>_PORT, <APP>_METRICS_PORT), MONGO_URL and REDIS_URL (the FerretDB and redis-server it starts), GATEWAY_URL and
 * the subgraph URLs (the ports it chose).
 */
const SECRETS = {
  JWT_SECRET: randomBytes(36).toString('base64url'),
  SUBGRAPH_SECRET: randomBytes(36).toString('base64url'),
  // A rotation in progress (README "Rotating secrets"): other values accepted beside the current ones.
  JWT_SECRET_ACCEPTED: randomBytes(36).toString('base64url'),
  SUBGRAPH_SECRET_ACCEPTED: randomBytes(36).toString('base64url'),
  IDEMPOTENCY_SECRET: randomBytes(36).toString('base64url'),
  IDEMPOTENCY_SECRET_ACCEPTED: randomBytes(36).toString('base64url'),
  BOOTSTRAP_ADMIN_PASSWORD: `admin-${randomBytes(12).toString('hex')}`,
  BOOTSTRAP_API_KEY: `start-key-${randomBytes(12).toString('hex')}`,
  GRAPHIQL_PASSWORD: `graphiql-${randomBytes(12).toString('hex')}`,
  WEBHOOK_SECRETS_KEY: randomBytes(36).toString('base64url'),
  WEBHOOK_SECRETS_KEY_ACCEPTED: randomBytes(36).toString('base64url'),
};
const SETTINGS: Record<string, string> = {
  ...SECRETS,
  // Still loopback (the listener check below), but not the default spelling.
  HOST: 'localhost',
  NODE_ENV: 'test',
  // Not `warn`: the start line that lists the settings is logged at info.
  LOG_LEVEL: 'debug',
  ACCESS_TOKEN_TTL: '900',
  REFRESH_TOKEN_TTL: '604800',
  ERROR_FORMAT: 'envelope',
  VALIDATION_STATUS: '400',
  LOGIN_FAILURE_STATUS: '400',
  USERS_LIST_STYLE: 'page',
  RATE_LIMIT_POINTS: '500',
  RATE_LIMIT_WINDOW: '30',
  LOGIN_RATE_LIMIT_POINTS: '20',
  LOGIN_RATE_LIMIT_BLOCK_SECONDS: '60',
  RATE_LIMIT_FAIL_MODE: 'closed',
  IDEMPOTENCY_FAIL_MODE: 'closed',
  REQUIRE_IF_MATCH: 'true',
  REDIS_COMMAND_TIMEOUT_MS: '200',
  TRUST_PROXY: '1',
  COMPRESSION_MIN_BYTES: '2048',
  CORS_ORIGINS: 'https://app.example.com',
  MAX_BODY_BYTES: '2097152',
  REQUEST_TIMEOUT_MS: '20000',
  GATEWAY_MODE: 'remote',
  GATEWAY_TIMEOUT_MS: '9000',
  SUBGRAPH_TIMEOUT_MS: '4000',
  WRITE_COMMIT_TIMEOUT_MS: '2500',
  SUBGRAPH_DEDUP: 'off',
  READ_CACHE: 'off',
  READ_CACHE_MAX_ENTRIES: '5000',
  READ_CACHE_MAX_BYTES: '16777216',
  READ_CACHE_TTL_MS: '2000',
  // GRAPHQL_MAX_DEPTH and TOKEN_STATUS_CACHE_TTL_MS were dropped by the launcher's hand-written list once.
  GRAPHQL_MAX_DEPTH: '2',
  GRAPHQL_MAX_ALIASES: '25',
  GRAPHQL_MAX_DIRECTIVES: '15',
  GRAPHQL_MAX_COST: '20000',
  TOKEN_STATUS_CACHE_TTL_MS: '0',
  // Development mode: accepted whatever its value; the start line still names it.
  MONGO_ALLOW_STANDALONE: 'true',
  BOOTSTRAP_ADMIN_USERNAME: 'start-admin',
  BOOTSTRAP_ADMIN_EMAIL: 'start-admin@example.com',
  API_KEY_PROTECTION: 'off',
  API_KEY_CACHE_TTL_MS: '5000',
  GRAPHIQL: 'off',
  APQ_CACHE_TTL_SECONDS: '3600',
  APQ_MAX_DOCUMENT_BYTES: '16384',
  APQ_MAX_ENTRIES: '5000',
  APQ_MAX_BYTES: '8388608',
  APQ_CLIENT_MAX_BYTES: '131072',
  TRUSTED_DOCUMENTS: 'true',
  EVENTS: 'off',
  EVENTS_SWEEP_AFTER_MS: '5000',
  EVENTS_FAULT_POINT: 'crash-after-write:1000000',
  EVENT_RETENTION_DAYS: '7',
  WEBHOOK_QUEUE_PREFIX: 'npm-start-test',
  WEBHOOK_SECRET_OVERLAP_SECONDS: '3600',
  WEBHOOK_MAX_PER_OWNER: '5',
  WEBHOOK_RETRY_SCHEDULE: '1,2,3',
  WEBHOOK_TIMEOUT_MS: '5000',
  WEBHOOK_MAX_RESPONSE_BYTES: '1024',
  // npm start's own value (the code's default is false): a caller's `false` would be the default and go unlisted.
  WEBHOOK_ALLOW_LOOPBACK: 'true',
  WEBHOOK_EGRESS: 'loopback',
  WEBHOOK_CONCURRENCY: '4',
  WEBHOOK_SWEEP_INTERVAL_MS: '5000',
  WEBHOOK_OWNER_CACHE_TTL_MS: '0',
  WEBHOOK_OWNER_DELIVERY_BUDGET: '500',
  WEBHOOK_OWNER_BUDGET_WINDOW_SECONDS: '30',
};
const SET_BY_LAUNCHER = [
  'PORT',
  'METRICS_PORT',
  'MONGO_URL',
  'REDIS_URL',
  'GATEWAY_URL',
  'MONGO_INDEXES',
  ...['USERS', 'ITEMS', 'AUTH', 'POSTS', 'EVENTS'].map((s) => `${s}_SUBGRAPH_URL`),
];

/** Per process, the `settingsFromEnvironment` of its `<name> listening` log line. */
function settingsLogged(output: string): Record<string, string[]> {
  const logged: Record<string, string[]> = {};
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; settingsFromEnvironment?: string[] };
    const name = APP_NAMES.find((app) => entry.msg === `${app} listening`);
    if (name && entry.settingsFromEnvironment) logged[name] = entry.settingsFromEnvironment;
  }
  return logged;
}

describe('npm start', () => {
  it('when started with every documented setting, then each reaches the process that reads it, and after SIGINT every process it started is gone', async () => {
    const documented = documentedVariables(stack.rootDir);
    expect(Object.keys(SETTINGS).concat(SET_BY_LAUNCHER).sort()).toEqual([...documented].sort());
    const data = makeTempDir('npm-start-');
    const names = [
      'rest',
      'gateway',
      'users',
      'items',
      'auth',
      'posts',
      'events',
      'deliveries',
      'mongo',
      'redis',
    ];
    const ports: Record<string, string> = {};
    for (const name of names) ports[`${name.toUpperCase()}_PORT`] = String(await freePort());
    // Each app's metrics listener too (REST_METRICS_PORT, ...): also loopback-only, and printed.
    for (const name of names.slice(0, 8))
      ports[`${name.toUpperCase()}_METRICS_PORT`] = String(await freePort());
    const child = spawn(process.execPath, ['tools/start.mjs'], {
      cwd: stack.rootDir,
      env: { ...process.env, ...ports, ...SETTINGS, DATA_DIR: data.path, TEST_STACK: '', SKIP_BUILD: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a failed test can still remove everything it started.
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitForHttpOk(
        `http://127.0.0.1:${ports['REST_PORT']}/readyz`,
        90_000,
        () => child.exitCode === null,
      );
      // The URLs are printed once every process is ready.
      // And each process's start line (with the settings it read) is in: bounded, however loaded the machine.
      const started = () =>
        output.includes('all processes ready') &&
        APP_NAMES.every((app) => output.includes(`"${app} listening"`));
      for (let waited = 0; !started() && waited < 60_000; waited += 100) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(output).toContain(`http://127.0.0.1:${ports['REST_PORT']}`);
      for (const name of names.slice(0, 8)) {
        expect(output).toContain(
          `metrics: http://127.0.0.1:${ports[`${name.toUpperCase()}_METRICS_PORT`]}/metrics`,
        );
      }
      const listeners = execFileSync('ss', ['-ltnpH'], { encoding: 'utf8' });
      for (const port of Object.values(ports)) {
        const locals = listeners
          .split('\n')
          .map((l) => l.trim().split(/\s+/)[3] ?? '')
          .filter((address) => address.endsWith(`:${port}`));
        expect({ port, locals }).toEqual({ port, locals: [`127.0.0.1:${port}`] });
      }
      expect((await http.get(`http://127.0.0.1:${ports['GATEWAY_PORT']}/healthz`)).status).toBe(200);
      // Each process names (never values) the settings it took from its environment: every documented one it declares.
      const logged = settingsLogged(output);
      for (const [name, declared] of Object.entries(variablesByProcess(stack.rootDir))) {
        if (!(APP_NAMES as readonly string[]).includes(name)) continue;
        // MONGO_INDEXES: the launcher keeps it at its default (`create`), so no process names it as set.
        const expected = declared.filter((variable) => documented.includes(variable) && variable !== 'MONGO_INDEXES');
        expect({
          name,
          missing: expected.filter((variable) => !(logged[name] ?? []).includes(variable)),
        }).toEqual({ name, missing: [] });
      }
      for (const secret of Object.values(SECRETS)) expect(output).not.toContain(secret);
      // And they take effect: the users subgraph holds the depth of 2 it was given (behind SUBGRAPH_SECRET), the
      // gateway runs only trusted documents.
      const usersUrl = `http://127.0.0.1:${ports['USERS_PORT']}/graphql`;
      const deep = await http.graphql(usersUrl, '{ users { nodes { id } } }', undefined, {
        headers: { 'x-subgraph-secret': SECRETS.SUBGRAPH_SECRET },
      });
      expect(deep.status).toBe(400);
      expect(deep.body.errors[0].message).toBe('Query depth limit of 2 exceeded, found 3.');
      const untrusted = await http.graphql(
        `http://127.0.0.1:${ports['GATEWAY_PORT']}/graphql`,
        '{ __typename }',
      );
      expect(untrusted.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
      const pids = descendants(child.pid!);
      expect(pids.length).toBeGreaterThanOrEqual(8);
      const ferret = execFileSync('ps', ['-o', 'args=', '-p', pids.join(',')], { encoding: 'utf8' });
      expect(ferret).toContain('--telemetry=disable');
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      await new Promise((r) => setTimeout(r, 200));
      const left = pids.filter(alive);
      const described = left.length
        ? execFileSync('ps', ['-o', 'pid=,stat=,args=', '-p', left.join(',')], { encoding: 'utf8' })
        : '';
      expect(described).toBe('');
    } finally {
      if (child.exitCode === null) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      data.remove();
    }
  }, 150_000);
});
