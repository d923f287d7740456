/**
 * Python tools from PyPI, pinned, each installed once into a virtualenv in the project's cache (like FerretDB):
 * Schemathesis, run against a live facade with the committed configuration (apps/e2e/schemathesis/: every check and
 * phase, fixed seed, documented exceptions), and openapi-python-client for the generated-client test.
 */
import { execFile as execFileCallback, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repositoryRoot } from './repository-root';

const execFile = promisify(execFileCallback);

export const SCHEMATHESIS_VERSION = '4.32.5';
const ROOT = repositoryRoot();
export const SCHEMATHESIS_CONFIG_DIR = join(ROOT, 'apps', 'e2e', 'schemathesis');

type Log = (message: string) => void;

function cacheRoot(): string {
  return join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'api-platform');
}

/**
 * A PyPI tool pinned at `version`, installed once into its own virtualenv in the cache
 * (`~/.cache/api-platform/<package>-<version>`); returns the path of its `executable`.
 */
export async function ensurePythonTool(
  pkg: string,
  version: string,
  executable: string,
  log: Log = () => undefined,
): Promise<string> {
  const dir = join(cacheRoot(), `${pkg}-${version}`);
  const marker = join(dir, '.installed');
  const installed = join(dir, 'bin', executable);
  // The marker and the executable: a cache whose files were removed behind the marker's back is installed again.
  if (existsSync(marker) && readFileSync(marker, 'utf8').trim() === version && existsSync(installed)) return installed;
  // The marker is written last: a directory without it is an interrupted install, removed and redone.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(cacheRoot(), { recursive: true });
  log(`installing ${pkg} ${version} into ${dir} (python3 -m venv + pip; first run only)`);
  try {
    await execFile('python3', ['-m', 'venv', dir], { timeout: 120_000 });
    await execFile(join(dir, 'bin', 'pip'), ['install', '--quiet', `${pkg}==${version}`], {
      timeout: 900_000,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `could not install ${pkg} ${version} (needs python3 with venv, and PyPI): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  writeFileSync(`${marker}.tmp`, `${version}\n`);
  renameSync(`${marker}.tmp`, marker);
  return installed;
}

/** The `st` executable, installing Schemathesis into the cache on first use. */
export const ensureSchemathesis = (log?: Log): Promise<string> =>
  ensurePythonTool('schemathesis', SCHEMATHESIS_VERSION, 'st', log);

export interface SchemathesisRun {
  exitCode: number;
  /** The console report (failures with curl reproductions, then the summary). */
  output: string;
}

export interface SchemathesisOptions {
  /** The facade's base URL; the run reads `${restUrl}/openapi.json`. */
  restUrl: string;
  /** A registered user's access token, sent as `Authorization: Bearer`. */
  token: string;
  /** Test cases per operation and phase (`--max-examples`). */
  maxExamples: number;
  seed?: number;
  /** Stops the run after this long (its own `--max-time` is a budget for fuzzing, not a deadline). */
  timeoutMs: number;
  log?: Log;
}

/** Runs every check and every phase against the live facade; exit code 0 means no failure and no error. */
export async function runSchemathesis(options: SchemathesisOptions): Promise<SchemathesisRun> {
  const st = await ensureSchemathesis(options.log);
  const args = [
    '--no-color',
    '--config-file',
    join(SCHEMATHESIS_CONFIG_DIR, 'schemathesis.toml'),
    'run',
    `${options.restUrl}/openapi.json`,
    '--checks',
    'all',
    '--phases',
    'examples,coverage,fuzzing,stateful',
    '--max-examples',
    String(options.maxExamples),
    '--seed',
    String(options.seed ?? 42),
    '--workers',
    '1',
    '--header',
    `Authorization: Bearer ${options.token}`,
    '--output-truncate',
    'true',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(st, args, {
      cwd: SCHEMATHESIS_CONFIG_DIR,
      env: { ...process.env, NO_COLOR: '1', PYTHONUNBUFFERED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    // Each finished operation's line goes to the log as it comes, with the seconds since the start: a slow phase or
    // operation shows where the run's time goes.
    const started = Date.now();
    let partial = '';
    const collect = (chunk: Buffer) => {
      chunks.push(chunk);
      if (!options.log) return;
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() !== '') options.log(`+${Math.round((Date.now() - started) / 1000)}s ${line}`);
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const output = Buffer.concat(chunks).toString('utf8');
      resolve({ exitCode: code ?? (signal ? 128 : 1), output });
    });
  });
}
