/**
 * A whole system a test starts for itself, beside the shared stack: its own FerretDB (on a database of its own on
 * the run's PostgreSQL cluster) and redis-server and the eight
 * processes from dist/, in production mode with its own secrets (`ownSystemEnv`), on free ports, logging into `dir`.
 * For a test whose results must not depend on what the rest of the suite left in the shared databases.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  ownSystemEnv,
  startRedis,
  startSystem,
  type RunningInfra,
  type RunningSystem,
} from '@platform/dev-stack';
import { startSuiteFerretDb } from './suite-ferretdb';
import { testInfra } from './test-stack';

export interface OwnSystem {
  system: RunningSystem;
  ferret: RunningInfra;
  redis: RunningInfra;
  /** Stops the processes, then FerretDB and redis-server. */
  stop(): Promise<void>;
}

export async function startOwnSystem(options: {
  dir: string;
  /** The bootstrap admin the test knows. */
  admin: { username: string; password: string };
  /** Settings on top of `ownSystemEnv`. */
  env?: Record<string, string>;
  /** The URL the processes reach MongoDB at, from FerretDB's (a wire recorder in between); FerretDB's by default. */
  mongoUrlOf?: (ferretUrl: string) => Promise<string>;
}): Promise<OwnSystem> {
  const ferret = await startSuiteFerretDb({
    dataDir: join(options.dir, 'ferretdb'),
    logFile: join(options.dir, 'ferretdb.log'),
  });
  const redis = await startRedis({ dataDir: join(options.dir, 'redis') });
  const stopInfra = () => Promise.all([ferret.process.stop(), redis.process.stop()]);
  try {
    const system = await startSystem({
      rootDir: testInfra().rootDir,
      mongoUrl: options.mongoUrlOf ? await options.mongoUrlOf(ferret.url) : ferret.url,
      redisUrl: redis.url,
      jwtSecret: randomBytes(48).toString('base64url'),
      freePorts: true,
      logDir: options.dir,
      env: { ...ownSystemEnv(join(options.dir, 'data'), options.admin), ...options.env },
    });
    return {
      system,
      ferret,
      redis,
      stop: async () => {
        await system.stop();
        await stopInfra();
      },
    };
  } catch (error) {
    await stopInfra();
    throw error;
  }
}
