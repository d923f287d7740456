/**
 * MongoDB in production (docs/decisions/0026-mongodb-in-production.md), on the real process: a subgraph started with
 * NODE_ENV=production refuses a connection string that weakens a guarantee and a standalone server, and with
 * MONGO_INDEXES=verify it serves unready until `--create-indexes` (what the Kubernetes Job runs) has built its indexes.
 * The shared FerretDB is a standalone server, so it stands in for the server production must refuse.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { freePort, makeTempDir, startApp, type ManagedProcess } from '@platform/dev-stack';
import { http, testStack, unique } from '@platform/testing';

const stack = testStack();

const productionEnv = async (database: string, overrides: Record<string, string> = {}) => ({
  NODE_ENV: 'production',
  LOG_LEVEL: 'info',
  JWT_SECRET: randomBytes(48).toString('base64'),
  SUBGRAPH_SECRET: randomBytes(48).toString('base64'),
  MONGO_URL: stack.mongoUrl,
  MONGO_DB: database,
  PORT: String(await freePort()),
  METRICS_PORT: 'off',
  APOLLO_TELEMETRY_DISABLED: 'true',
  ...overrides,
});

/** The URL with one query option more (the stack's URL may already carry a query). */
const withOption = (url: string, option: string): string => `${url}${url.includes('?') ? '&' : '?'}${option}`;

async function exitOf(
  proc: ManagedProcess,
  logDir: string,
  logName: string,
): Promise<{ code: number | null; log: string }> {
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 30_000);
  const code = await proc.exited;
  clearTimeout(timer);
  return { code, log: await readFile(join(logDir, `${logName}.log`), 'utf8') };
}

describe('MongoDB settings in production', () => {
  const temp = makeTempDir('mongo-production-');
  const logDir = temp.path;
  afterAll(() => temp.remove());

  it('when a production subgraph meets a standalone server, then it refuses to start and names the reason', async () => {
    const env = await productionEnv(`api_items_${unique()}`);
    const { code, log } = await exitOf(
      startApp('items', { rootDir: stack.rootDir, env, logDir, logName: 'standalone' }),
      logDir,
      'standalone',
    );
    expect(code).toBe(1);
    expect(log).toContain('unsafe MongoDB configuration for production');
    expect(log).toContain('standalone');
    expect(log).not.toContain(stack.mongoUrl);
  });

  it.each([
    ['w=1', 'w=1'],
    ['journal=false', 'journal=false'],
    ['retryWrites=false', 'retryWrites=false'],
    ['readPreference=secondaryPreferred', 'readPreference=secondaryPreferred'],
  ])(
    'when the connection string sets %s, then production refuses it even where standalones are allowed',
    async (option, named) => {
      const env = await productionEnv(`api_items_${unique()}`, {
        MONGO_URL: withOption(stack.mongoUrl, option),
        MONGO_ALLOW_STANDALONE: 'true',
      });
      const logName = `option-${option.replace(/\W/g, '-')}`;
      const { code, log } = await exitOf(
        startApp('items', { rootDir: stack.rootDir, env, logDir, logName }),
        logDir,
        logName,
      );
      expect(code).toBe(1);
      expect(log).toContain(named);
    },
  );

  it('when MONGO_INDEXES=verify and the indexes are missing, then the subgraph is unready until --create-indexes has built them', async () => {
    const database = `api_items_${unique()}`;
    const env = await productionEnv(database, { MONGO_ALLOW_STANDALONE: 'true', MONGO_INDEXES: 'verify' });
    const app = startApp('items', { rootDir: stack.rootDir, env, logDir, logName: 'verify' });
    try {
      const url = `http://127.0.0.1:${env.PORT}`;
      // Alive and answering, but not ready: no index exists yet.
      let health = await http.get(`${url}/healthz`).catch(() => undefined);
      for (let i = 0; i < 100 && health?.status !== 200; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        health = await http.get(`${url}/healthz`).catch(() => undefined);
      }
      expect(health?.status).toBe(200);
      expect((await http.get(`${url}/readyz`)).status).toBe(503);

      // The Job's step: the same image and settings, `--create-indexes`, exits 0 once they exist.
      const jobEnv = { ...env, PORT: String(await freePort()) };
      const job = startProcessOf('items', jobEnv, logDir);
      const { code, log } = await exitOf(job, logDir, 'index-job');
      expect({ code, log: code === 0 ? '' : log }).toEqual({ code: 0, log: '' });
      expect(log).toContain('indexes created');

      const client = await MongoClient.connect(stack.mongoUrl);
      try {
        const names = (await client.db(database).collection('items').listIndexes().toArray()).map(
          (i) => i['name'],
        );
        expect(names).toEqual(
          expect.arrayContaining(['name_1__id_1', 'priceCents_-1__id_1', 'ownerId_1__id_1']),
        );
      } finally {
        await client.close();
      }

      let ready = 503;
      for (let i = 0; i < 40 && ready !== 200; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        ready = (await http.get(`${url}/readyz`)).status;
      }
      expect(ready).toBe(200);
      // The process writes its log asynchronously (pino): the line saying so may reach the file just after readiness.
      let lines = await readFile(join(logDir, 'verify.log'), 'utf8');
      for (let i = 0; i < 40 && !lines.includes('indexes present: ready'); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        lines = await readFile(join(logDir, 'verify.log'), 'utf8');
      }
      expect(lines).toContain('indexes missing (MONGO_INDEXES=verify)');
      expect(lines).toContain('indexes present: ready');
    } finally {
      await app.stop('SIGTERM', 10_000);
    }
  });
});

/** `node dist/apps/<app>/main.js --create-indexes`, as the index Job's container runs it. */
function startProcessOf(name: 'items', env: Record<string, string>, logDir: string): ManagedProcess {
  return startApp(name, {
    rootDir: stack.rootDir,
    env,
    logDir,
    logName: 'index-job',
    args: ['--create-indexes'],
  });
}
