/**
 * The run's PostgreSQL cluster, FerretDB on it and redis-server, started once for every project that needs them (the
 * component and e2e tiers) and stopped when the last of them tears down; tests read them through `testInfra()`.
 */
import { join } from 'node:path';
// jest loads globalSetup with Node's own resolver (no moduleNameMapper), so the dev stack by its path.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { loopbackTls, makeTempDir, repositoryRoot, startFerretDb, startPostgres, startRedis } from '../../../dev-stack/src';
import type { TestInfra } from '../test-stack';

interface Shared {
  infra: TestInfra;
  temp: { path: string; remove(): void };
  users: number;
  stop(): Promise<void>;
}

const KEY = '__TEST_INFRA__';
const shared = (): Shared | undefined => (globalThis as Record<string, unknown>)[KEY] as Shared | undefined;
export const log = (message: string) => process.stdout.write(`[globalSetup] ${message}\n`);

/** The run's infrastructure, started by the first caller; each caller's `releaseInfra` gives its share back. */
export async function acquireInfra(): Promise<{ infra: TestInfra; temp: { path: string; remove(): void } }> {
  const running = shared();
  if (running) {
    running.users += 1;
    return running;
  }
  const temp = makeTempDir('api-platform-test-');
  const started: Array<{ process: { stop(): Promise<unknown> } }> = [];
  const stopAll = async () => {
    for (const s of started.splice(0).reverse()) await s.process.stop();
  };
  try {
    // One PostgreSQL cluster for the run (fsync off: its data goes with the run); tests' own FerretDBs get databases on it.
    const postgres = await startPostgres({ dataDir: join(temp.path, 'postgres'), logFile: join(temp.path, 'postgres.log'), log });
    started.push(postgres);
    const ferret = await startFerretDb({
      dataDir: join(temp.path, 'ferretdb'),
      postgresUrl: await postgres.createDatabase('ferretdb'),
      logFile: join(temp.path, 'ferretdb.log'),
      log,
    });
    started.push(ferret);
    const redis = await startRedis({ dataDir: join(temp.path, 'redis'), log });
    started.push(redis);
    const infra: TestInfra = {
      rootDir: repositoryRoot(),
      mongoUrl: ferret.url,
      postgresUrl: postgres.url('postgres'),
      redisUrl: redis.url,
      // Production delivers webhooks to https endpoints only: the tests' receivers present this certificate.
      webhookTls: loopbackTls(temp.path),
    };
    process.env['TEST_INFRA'] = JSON.stringify(infra);
    const state: Shared = {
      infra,
      temp,
      users: 1,
      stop: async () => {
        await stopAll();
        if (process.env['KEEP_TEST_LOGS'] !== '1') temp.remove();
      },
    };
    (globalThis as Record<string, unknown>)[KEY] = state;
    return state;
  } catch (error) {
    await stopAll();
    if (process.env['KEEP_TEST_LOGS'] !== '1') temp.remove();
    throw error;
  }
}

/** Gives one share back; the last one stops the infrastructure and removes its temp dir. */
export async function releaseInfra(): Promise<void> {
  const running = shared();
  if (!running) return;
  running.users -= 1;
  if (running.users > 0) return;
  delete (globalThis as Record<string, unknown>)[KEY];
  await running.stop();
}
