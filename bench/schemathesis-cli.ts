/**
 * `node bench/schemathesis.mjs [--max-examples N] [--seed S]`: the Schemathesis run of the test suite, longer. Starts
 * FerretDB, redis-server and the six processes on free ports (as jest's globalSetup does), registers a member, runs
 * every check and phase with the committed configuration (apps/e2e/schemathesis/) and exits with Schemathesis' code.
 */
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import {
  generatedSecret,
  makeTempDir,
  productionMode,
  runSchemathesis,
  startFerretDb,
  startRedis,
  startSystem,
} from '@platform/dev-stack';

const log = (message: string) => process.stdout.write(`[schemathesis-bench] ${message}\n`);

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index < 0 ? fallback : Number(process.argv[index + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

async function main(): Promise<number> {
  const maxExamples = option('max-examples', 100);
  const seed = option('seed', 42);
  const rootDir = resolve(__dirname, '..', '..');
  const temp = makeTempDir('schemathesis-bench-');
  const ferret = await startFerretDb({ dataDir: join(temp.path, 'ferretdb'), logFile: join(temp.path, 'ferretdb.log'), log });
  const redis = await startRedis({ dataDir: join(temp.path, 'redis'), log });
  const system = await startSystem({
    rootDir,
    mongoUrl: ferret.url,
    redisUrl: redis.url,
    jwtSecret: generatedSecret(),
    freePorts: true,
    logDir: temp.path,
    env: {
      // As the stack suite: the processes as production runs them.
      ...productionMode(generatedSecret()),
      DATA_DIR: join(temp.path, 'data'),
      RATE_LIMIT_POINTS: '1000000',
      LOGIN_RATE_LIMIT_POINTS: '1000000',
      BOOTSTRAP_ADMIN_USERNAME: 'admin',
      BOOTSTRAP_ADMIN_PASSWORD: 'admin-password-1',
    },
  });
  try {
    const username = `fuzz${Date.now().toString(36)}`;
    const password = `pw-${randomBytes(6).toString('hex')}-1`;
    const registered = await fetch(`${system.urls.rest}/users/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, email: `${username}@example.com`, password }),
    });
    if (registered.status !== 201) throw new Error(`registration failed: ${registered.status} ${await registered.text()}`);
    const login = await fetch(`${system.urls.rest}/token`, {
      method: 'POST',
      body: new URLSearchParams({ username, password }),
    });
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${await login.text()}`);
    const { access_token: token } = (await login.json()) as { access_token: string };
    log(`running Schemathesis: --max-examples ${maxExamples} --seed ${seed} against ${system.urls.rest} (logs: ${temp.path})`);
    const run = await runSchemathesis({
      restUrl: system.urls.rest,
      token,
      maxExamples,
      seed,
      timeoutMs: 3 * 60 * 60 * 1000,
      log,
    });
    process.stdout.write(run.output);
    return run.exitCode;
  } finally {
    await system.stop();
    await Promise.all([ferret.process.stop(), redis.process.stop()]);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
