/**
 * Local infrastructure, provisioned by the project itself: FerretDB v1.24.2 (built from the Go module proxy into a
 * cache outside the repo) on PostgreSQL and redis-server (Debian packages), each on a free loopback port and stopped
 * again. Used by `npm start` (data kept in .data/), the bench and jest's globalSetup (fresh temp dirs).
 */
import { execFile as execFileCallback } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { aptInstall } from './apt';
import { ensureGoTool, type GoTool } from './go-tools';
import { startProcess, type ManagedProcess } from './managed-process';
import { freePort, waitForPort } from './ports';
import { EMBEDDED_DRIVER_POOL, FERRETDB_POOL_MAX_CONNS, startPostgres, type RunningPostgres } from './postgres';

const execFile = promisify(execFileCallback);

export const FERRETDB_VERSION = 'v1.24.2';

type Log = (message: string) => void;

/**
 * FerretDB from its module source: a plain `go install ...@v1.24.2` gives a binary without the generated
 * build/version/version.txt (docs/decisions/0001), so the build writes that file into the source first.
 */
export const FERRETDB: GoTool = {
  name: 'ferretdb',
  title: 'FerretDB',
  module: 'github.com/FerretDB/FerretDB',
  version: FERRETDB_VERSION,
  packagePath: './cmd/ferretdb',
  probe: ['--version'],
  expectedDuration: 'about a minute',
  prepare: (source) => {
    chmodSync(join(source, 'build', 'version'), 0o755);
    writeFileSync(join(source, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
  },
};

/** Returns the FerretDB binary, building it into the cache when missing. */
export const ensureFerretDb = (log: Log = () => undefined): Promise<string> => ensureGoTool(FERRETDB, log);

async function which(command: string): Promise<string | undefined> {
  try {
    const { stdout } = await execFile('sh', ['-c', `command -v ${command}`]);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Returns the redis-server binary, installing the Debian package when missing and possible. */
export async function ensureRedisServer(log: Log = () => undefined): Promise<string> {
  const found = await which('redis-server');
  if (found) return found;
  const apt = await which('apt-get');
  if (!apt || process.getuid?.() !== 0) {
    throw new Error(
      'redis-server is not installed; install the Debian package redis-server (apt-get install redis-server)',
    );
  }
  log('installing redis-server (apt-get; first run only)');
  await aptInstall('redis-server', 600_000);
  const installed = await which('redis-server');
  if (!installed) throw new Error('apt-get install redis-server did not provide redis-server');
  return installed;
}

export interface RunningInfra {
  process: ManagedProcess;
  url: string;
  port: number;
}

interface InfraOptions {
  dataDir: string;
  port?: number;
  logFile?: string;
  log?: Log;
}

/** One local server process (its binary fetched if need be) on a free or given port, waited for until it listens. */
async function startInfra(
  name: string,
  options: InfraOptions,
  ensure: (log?: Log) => Promise<string>,
  args: (port: number) => string[],
  readyMs: number,
  url: (port: number) => string,
): Promise<RunningInfra> {
  const binary = await ensure(options.log);
  mkdirSync(options.dataDir, { recursive: true });
  const port = options.port ?? (await freePort());
  // Under `setpriv --pdeathsig` where it exists: the kernel ends the server when its parent dies, even by SIGKILL.
  const [command, commandArgs] = existsSync('/usr/bin/setpriv')
    ? ['/usr/bin/setpriv', ['--pdeathsig=SIGTERM', '--', binary, ...args(port)]]
    : [binary, args(port)];
  const proc = startProcess(name, command, commandArgs, { logFile: options.logFile, stdio: 'ignore' });
  await waitForPort(port, readyMs, () => proc.child.exitCode === null);
  return { process: proc, url: url(port), port };
}

export interface FerretDbOptions extends InfraOptions {
  /**
   * The PostgreSQL database FerretDB keeps its data in (createPostgresDatabase on a running cluster); without it, a
   * cluster of its own in `<dataDir>/postgres`, started and stopped with it.
   */
  postgresUrl?: string;
  /** For a cluster of its own: fsync on (npm start) or off (throwaway data). */
  durable?: boolean;
}

/**
 * FerretDB on PostgreSQL, its pool sized above what its clients can open (postgres.ts). Its URL carries the driver pool
 * its clients take (`maxPoolSize`).
 */
export async function startFerretDb(options: FerretDbOptions): Promise<RunningInfra> {
  let cluster: RunningPostgres | undefined;
  let postgresUrl = options.postgresUrl;
  if (!postgresUrl) {
    cluster = await startPostgres({
      dataDir: join(options.dataDir, 'postgres'),
      log: options.log,
      durable: options.durable ?? false,
      ...(options.logFile ? { logFile: `${options.logFile.replace(/\.log$/, '')}-postgres.log` } : {}),
    });
    postgresUrl = cluster.url('ferretdb');
    await cluster.createDatabase('ferretdb').catch(async (error: unknown) => {
      if (/already exists/.test(String((error as { stderr?: unknown }).stderr))) return;
      await cluster?.process.stop();
      throw error;
    });
  }
  const backend = new URL(postgresUrl);
  backend.searchParams.set('pool_max_conns', String(FERRETDB_POOL_MAX_CONNS));
  backend.searchParams.set('sslmode', 'disable');
  let ferret: RunningInfra;
  try {
    ferret = await startInfra(
      'ferretdb',
      options,
      ensureFerretDb,
      (port) => [
        '--handler=postgresql',
        `--postgresql-url=${backend.toString()}`,
        `--listen-addr=127.0.0.1:${port}`,
        `--state-dir=${options.dataDir}`,
        '--telemetry=disable',
        '--debug-addr=-',
        '--log-level=warn',
      ],
      30_000,
      (port) => `mongodb://127.0.0.1:${port}/?maxPoolSize=${EMBEDDED_DRIVER_POOL}`,
    );
  } catch (error) {
    await cluster?.process.stop();
    throw error;
  }
  if (!cluster) return ferret;
  const own = cluster;
  const stopFerret = ferret.process.stop.bind(ferret.process);
  return {
    ...ferret,
    process: {
      ...ferret.process,
      async stop(signal?: NodeJS.Signals, graceMs?: number) {
        const code = await stopFerret(signal, graceMs);
        await own.process.stop(undefined, graceMs);
        return code;
      },
    },
  };
}

export function startRedis(options: InfraOptions): Promise<RunningInfra> {
  return startInfra(
    'redis',
    options,
    ensureRedisServer,
    (port) => [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      options.dataDir,
      '--protected-mode',
      'yes',
    ],
    15_000,
    (port) => `redis://127.0.0.1:${port}`,
  );
}

export function makeTempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export const pathExists = existsSync;
