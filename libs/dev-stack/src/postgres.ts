/**
 * The PostgreSQL cluster under the embedded FerretDB: the Debian package's binaries (installed when missing), one
 * cluster per `npm start` (.data/) or test run, initdb'd with trust auth on loopback only, on its own free port, run as
 * the unprivileged `postgres` user when started as root, and shut down fast when its parent goes (even on a crash).
 */
import { execFile as execFileCallback } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { aptInstall } from './apt';
import { startProcess, type ManagedProcess } from './managed-process';
import { freePort } from './ports';

const execFile = promisify(execFileCallback);
type Log = (message: string) => void;

const PG_ROOT = '/usr/lib/postgresql';

/**
 * Pools: every client of one FerretDB holds at most POOL_PER_CLIENT connections (EMBEDDED_MONGO_OPTIONS), an operation
 * holds at most two PostgreSQL connections, and FerretDB's pool must exceed the connections its clients can open or a
 * burst of updates of one document waits in it for good; PostgreSQL's max_connections is above every FerretDB's pool.
 */
export const FERRETDB_POOL_MAX_CONNS = 800;
export const POSTGRES_MAX_CONNECTIONS = 900;
/** The driver pool the embedded database's clients take (in its connection string): 32 clients fit FerretDB's pool. */
export const EMBEDDED_DRIVER_POOL = 25;

/** The highest PostgreSQL major version installed under /usr/lib/postgresql, if any. */
function installedBinDir(): string | undefined {
  if (!existsSync(PG_ROOT)) return undefined;
  const versions = readdirSync(PG_ROOT)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(PG_ROOT, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(PG_ROOT, versions[0], 'bin') : undefined;
}

/** Returns PostgreSQL's bin directory, installing the Debian package `postgresql` when missing and possible. */
export async function ensurePostgres(log: Log = () => undefined): Promise<string> {
  const found = installedBinDir();
  if (found) return found;
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    throw new Error('PostgreSQL is not installed; install the Debian package postgresql (apt-get install postgresql)');
  }
  log('installing postgresql (apt-get; first run only)');
  await aptInstall('postgresql', 600_000);
  const installed = installedBinDir();
  if (!installed) throw new Error(`apt-get install postgresql left no server under ${PG_ROOT}`);
  // The package creates and may start a default cluster on 5432; the kit runs clusters of its own only.
  await execFile('sh', ['-c', 'for c in $(pg_lsclusters -h 2>/dev/null | cut -d" " -f1,2 | tr " " /); do pg_ctlcluster ${c%/*} ${c#*/} stop; done'])
    .catch(() => undefined);
  return installed;
}

const asRoot = () => process.getuid?.() === 0;

/** The system user the server runs as when started as root (the Debian package makes it). */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (!asRoot()) return undefined;
  const ids = async () => {
    const { stdout } = await execFile('sh', ['-c', 'id -u postgres && id -g postgres']);
    const [uid, gid] = stdout.trim().split('\n').map(Number);
    return { uid: uid!, gid: gid! };
  };
  try {
    return await ids();
  } catch {
    await execFile('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
    return ids();
  }
}

/**
 * A command as the server user (when root), under `setpriv --pdeathsig`: the kernel sends `deathSignal` when the
 * process that started it exits, so a crashed parent leaves no server behind.
 */
function wrapped(user: { uid: number; gid: number } | undefined, deathSignal: string, command: string, args: string[]) {
  const drop = user ? [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--init-groups'] : [];
  return { command: 'setpriv', args: [...drop, `--pdeathsig=${deathSignal}`, '--', command, ...args] };
}

/** The server user must reach `dir`: temp dirs of ours get traverse-only permission; anything else must allow it. */
function makeReachable(dir: string): void {
  const temp = resolve(tmpdir());
  for (let current = resolve(dirname(dir)); current !== dirname(current); current = dirname(current)) {
    const mode = statSync(current).mode;
    if ((mode & 0o001) !== 0) continue;
    const inTemp = !relative(temp, current).startsWith('..') && current !== temp;
    if (!inTemp) throw new Error(`PostgreSQL runs as the postgres user, which cannot enter ${current}; choose a data dir it can reach`);
    chmodSync(current, (mode & 0o7777) | 0o001);
  }
}

export interface PostgresOptions {
  dataDir: string;
  port?: number;
  logFile?: string;
  log?: Log;
  /** fsync and synchronous commit on (npm start); off for throwaway clusters (tests: a crash loses the run anyway). */
  durable?: boolean;
}

export interface RunningPostgres {
  process: ManagedProcess;
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database: string): string;
  /** Creates a database (a fresh name unless given); returns its URL. */
  createDatabase(name?: string): Promise<string>;
}

/** Creates a database on the cluster at `clusterUrl` (any of its databases' URLs); returns its URL. */
export async function createPostgresDatabase(clusterUrl: string, name = `db_${randomBytes(6).toString('hex')}`): Promise<string> {
  const bin = await ensurePostgres();
  const url = new URL(clusterUrl);
  await execFile(join(bin, 'createdb'), ['-h', url.hostname, '-p', url.port, '-U', url.username || 'postgres', name], {
    env: { ...process.env, PGCONNECT_TIMEOUT: '10' },
    timeout: 30_000,
  });
  url.pathname = `/${name}`;
  url.search = '';
  return url.toString();
}

export async function startPostgres(options: PostgresOptions): Promise<RunningPostgres> {
  const bin = await ensurePostgres(options.log);
  const user = await serverUser();
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // The socket directory lives in the temp dir (a socket path must stay short) and goes with the server.
  const socketDir = mkdtempSync(join(tmpdir(), 'api-platform-pg-'));
  if (user) {
    makeReachable(dataDir);
    makeReachable(socketDir);
    chownSync(dataDir, user.uid, user.gid);
    chownSync(socketDir, user.uid, user.gid);
  }
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    const init = wrapped(user, 'SIGKILL', join(bin, 'initdb'), [
      '-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C',
      ...(options.durable ? [] : ['--no-sync']),
    ]);
    await execFile(init.command, init.args, { timeout: 120_000 }).catch((error: unknown) => {
      rmSync(socketDir, { recursive: true, force: true });
      throw error;
    });
  }
  const port = options.port ?? (await freePort());
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: socketDir,
    max_connections: String(POSTGRES_MAX_CONNECTIONS),
    logging_collector: 'off',
    log_min_messages: 'warning',
    ...(options.durable ? {} : { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }),
  };
  // SIGINT is PostgreSQL's fast shutdown: it ends its clients' sessions rather than waiting for them to leave.
  const run = wrapped(user, 'SIGINT', join(bin, 'postgres'), [
    '-D', dataDir,
    ...Object.entries(settings).flatMap(([key, value]) => ['-c', `${key}=${value}`]),
  ]);
  const server = startProcess('postgres', run.command, run.args, { logFile: options.logFile, stdio: 'ignore' });
  const stopServer = server.stop.bind(server);
  const proc: ManagedProcess = {
    ...server,
    async stop(_signal?: NodeJS.Signals, graceMs = 10_000) {
      const code = await stopServer('SIGINT', graceMs);
      rmSync(socketDir, { recursive: true, force: true });
      return code;
    },
  };
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  try {
    await waitForServer(bin, port, () => server.child.exitCode === null && server.child.signalCode === null);
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return { process: proc, port, url, createDatabase: (name) => createPostgresDatabase(url('postgres'), name) };
}

/** Until the server accepts connections (`pg_isready`), up to 30 s; fails at once when it exited. */
async function waitForServer(bin: string, port: number, isAlive: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = '';
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`PostgreSQL on port ${port} exited before it was ready`);
    try {
      await execFile(join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port), '-t', '2']);
      return;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`PostgreSQL on port ${port} not ready within 30 s (${last})`);
}
