/**
 * Local infrastructure, provisioned by the project itself: FerretDB v1.24.2 (built from the Go module proxy into a
 * cache outside the repo) and redis-server (Debian package), each started on a free loopback port and stopped again.
 * Used by `npm start` (data kept in .data/) and by jest's globalSetup (fresh temp dirs).
 */
import { execFile as execFileCallback } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, cpSync, chmodSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startProcess, type ManagedProcess } from './managed-process';
import { freePort, waitForPort } from './ports';

const execFile = promisify(execFileCallback);

export const FERRETDB_VERSION = 'v1.24.2';
const FERRETDB_MODULE = 'github.com/FerretDB/FerretDB';

type Log = (message: string) => void;

export function cacheDir(): string {
  const base = process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache');
  return join(base, 'api-platform', `ferretdb-${FERRETDB_VERSION}`);
}

async function works(binary: string): Promise<boolean> {
  try {
    const { stdout } = await execFile(binary, ['--version'], { timeout: 10_000 });
    return stdout.includes(FERRETDB_VERSION);
  } catch {
    return false;
  }
}

/** Returns the FerretDB binary, installing it into the cache when missing. */
export async function ensureFerretDb(log: Log = () => undefined): Promise<string> {
  const dir = cacheDir();
  const binary = join(dir, 'ferretdb');
  if (await works(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const goEnv = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: process.env['GOTOOLCHAIN'] ?? 'local', CGO_ENABLED: '0' };
  log(`installing FerretDB ${FERRETDB_VERSION} into ${dir} (go install; first run only)`);
  const staging = mkdtempSync(join(tmpdir(), 'ferretdb-build-'));
  try {
    try {
      await execFile('go', ['install', `${FERRETDB_MODULE}/cmd/ferretdb@${FERRETDB_VERSION}`], {
        env: { ...goEnv, GOBIN: staging },
        timeout: 600_000,
        cwd: staging,
      });
      if (await works(join(staging, 'ferretdb'))) {
        renameSync(join(staging, 'ferretdb'), binary);
        return binary;
      }
    } catch {
      // The module proxy here refuses the version list `go install` asks for, and the module's
      // build/version/version.txt is generated upstream; both are handled by the build below.
    }
    log('go install did not give a working binary; building the same module version from the Go module proxy');
    const { stdout } = await execFile('go', ['mod', 'download', '-json', `${FERRETDB_MODULE}@${FERRETDB_VERSION}`], {
      env: goEnv,
      timeout: 600_000,
      cwd: staging,
    });
    const moduleDir = (JSON.parse(stdout) as { Dir: string }).Dir;
    const source = join(staging, 'src');
    cpSync(moduleDir, source, { recursive: true });
    chmodSync(join(source, 'build', 'version'), 0o755);
    writeFileSync(join(source, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
    await execFile('go', ['build', '-o', join(staging, 'ferretdb'), './cmd/ferretdb'], {
      env: goEnv,
      cwd: source,
      timeout: 900_000,
    });
    if (!(await works(join(staging, 'ferretdb')))) throw new Error('the built FerretDB binary does not run');
    renameSync(join(staging, 'ferretdb'), binary);
    return binary;
  } catch (error) {
    throw new Error(
      `could not install FerretDB ${FERRETDB_VERSION} (needs Go and the Go module proxy): ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

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
    throw new Error('redis-server is not installed; install the Debian package redis-server (apt-get install redis-server)');
  }
  log('installing redis-server (apt-get; first run only)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await execFile(apt, ['update', '-qq'], { env, timeout: 300_000 });
  await execFile(apt, ['install', '-y', '-qq', 'redis-server'], { env, timeout: 600_000 });
  const installed = await which('redis-server');
  if (!installed) throw new Error('apt-get install redis-server did not provide redis-server');
  return installed;
}

export interface RunningInfra {
  process: ManagedProcess;
  url: string;
  port: number;
}

export async function startFerretDb(options: { dataDir: string; port?: number; logFile?: string; log?: Log }): Promise<RunningInfra> {
  const binary = await ensureFerretDb(options.log);
  mkdirSync(options.dataDir, { recursive: true });
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir.endsWith('/') ? options.dataDir : `${options.dataDir}/`;
  const proc = startProcess(
    'ferretdb',
    binary,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${dataDir}`,
      `--listen-addr=127.0.0.1:${port}`,
      `--state-dir=${options.dataDir}`,
      '--telemetry=disable',
      '--debug-addr=-',
      '--log-level=warn',
    ],
    { logFile: options.logFile, stdio: 'ignore' },
  );
  await waitForPort(port, 30_000, () => proc.child.exitCode === null);
  return { process: proc, url: `mongodb://127.0.0.1:${port}/`, port };
}

export async function startRedis(options: { dataDir: string; port?: number; logFile?: string; log?: Log }): Promise<RunningInfra> {
  const binary = await ensureRedisServer(options.log);
  mkdirSync(options.dataDir, { recursive: true });
  const port = options.port ?? (await freePort());
  const proc = startProcess(
    'redis',
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', options.dataDir, '--protected-mode', 'yes'],
    { logFile: options.logFile, stdio: 'ignore' },
  );
  await waitForPort(port, 15_000, () => proc.child.exitCode === null);
  return { process: proc, url: `redis://127.0.0.1:${port}`, port };
}

export function makeTempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export const pathExists = existsSync;
