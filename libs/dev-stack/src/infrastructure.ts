/**
 * Local infrastructure, provisioned by the project itself: FerretDB v1.24.2 (built from the Go module proxy into a
 * cache outside the repo) and redis-server (Debian package), each started on a free loopback port and stopped again.
 * Used by `npm start` (data kept in .data/) and by jest's globalSetup (fresh temp dirs).
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
  const proc = startProcess(name, binary, args(port), { logFile: options.logFile, stdio: 'ignore' });
  await waitForPort(port, readyMs, () => proc.child.exitCode === null);
  return { process: proc, url: url(port), port };
}

export function startFerretDb(options: InfraOptions): Promise<RunningInfra> {
  const dataDir = options.dataDir.endsWith('/') ? options.dataDir : `${options.dataDir}/`;
  return startInfra(
    'ferretdb',
    options,
    ensureFerretDb,
    (port) => [
      '--handler=sqlite',
      `--sqlite-url=file:${dataDir}`,
      `--listen-addr=127.0.0.1:${port}`,
      `--state-dir=${options.dataDir}`,
      '--telemetry=disable',
      '--debug-addr=-',
      '--log-level=warn',
    ],
    30_000,
    (port) => `mongodb://127.0.0.1:${port}/`,
  );
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
