/**
 * Tools that exist only as Go modules (FerretDB for `npm start` and the tests; promtool, kube-score for the tests):
 * built once at a pinned version from the Go module proxy into ~/.cache/api-platform/<name>-<version>/
 * (`go mod download -json` + `go build`, as for kustomize: the proxy here refuses the version list
 * `go install pkg@version` asks for), then reused. A build says what it does and, while it runs, how long so far.
 */
import { execFile as execFileCallback } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFile = promisify(execFileCallback);

export interface GoTool {
  /** Binary and cache-directory name. */
  name: string;
  /** How messages name it (default: `name`). */
  title?: string;
  module: string;
  version: string;
  /** The main package inside the module, e.g. `./cmd/promtool`. */
  packagePath: string;
  /** Arguments that make a working binary exit 0 (e.g. `--version`). */
  probe: string[];
  /** Go build tags. */
  tags?: string[];
  /** How long a first build takes here, for the message that announces it (e.g. `about a minute`). */
  expectedDuration?: string;
  /** Runs on the writable copy of the module's source before `go build` (e.g. writes a generated file). */
  prepare?: (sourceDir: string) => void;
}

/** Pinned: promtool of Prometheus 3.x (module versions v0.3xx.y are Prometheus 3.xx.y). */
export const PROMTOOL: GoTool = {
  name: 'promtool',
  module: 'github.com/prometheus/prometheus',
  version: 'v0.316.0',
  packagePath: './cmd/promtool',
  probe: ['--version'],
  // Without the service-discovery plugins (Prometheus' own switch): the linting and rule testing used here need none,
  // and one of their modules (hashicorp/nomad/api) is not served by the module proxy.
  tags: ['remove_all_sd'],
};

/** Pinned: the Kubernetes manifest scorer the deployment tests run on both rendered overlays. */
export const KUBE_SCORE: GoTool = {
  name: 'kube-score',
  module: 'github.com/zegl/kube-score',
  version: 'v1.20.0',
  packagePath: './cmd/kube-score',
  probe: ['version'],
};

async function runs(binary: string, args: string[]): Promise<boolean> {
  try {
    await execFile(binary, args, { timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

export function goToolPath(tool: GoTool): string {
  const base = process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache');
  return join(base, 'api-platform', `${tool.name}-${tool.version}`, tool.name);
}

type Log = (message: string) => void;

/** The line that announces a first-run build. */
export function buildingMessage(tool: GoTool, dir: string): string {
  const duration = tool.expectedDuration ? `, ${tool.expectedDuration}` : '';
  return `building ${tool.title ?? tool.name} ${tool.version} from the Go module proxy into ${dir} (first run only${duration})...`;
}

/**
 * Logs `<what>: <n> s so far` every `everyMs` until the returned function is called: a long build that prints nothing
 * otherwise still shows it is alive. Hand-written: the go tool's own `-v` output is one line per package, hundreds.
 */
export function reportProgress(log: Log, what: () => string, everyMs = 10_000): () => void {
  const started = Date.now();
  const timer = setInterval(
    () => log(`${what()}: ${Math.round((Date.now() - started) / 1000)} s so far`),
    everyMs,
  );
  timer.unref();
  return () => clearInterval(timer);
}

/** The tool's binary, built into the cache on first use (minutes for a large module: give the caller a long timeout). */
export async function ensureGoTool(tool: GoTool, log: Log = () => undefined): Promise<string> {
  const binary = goToolPath(tool);
  if (await runs(binary, tool.probe)) return binary;
  const dir = join(binary, '..');
  mkdirSync(dir, { recursive: true });
  log(buildingMessage(tool, dir));
  let step = 'downloading the module';
  const stopProgress = reportProgress(
    log,
    () => `still building ${tool.title ?? tool.name} ${tool.version} (${step})`,
  );
  const goEnv = {
    ...process.env,
    GOWORK: 'off',
    GOFLAGS: '-mod=mod',
    GOTOOLCHAIN: process.env['GOTOOLCHAIN'] ?? 'local',
    CGO_ENABLED: '0',
  };
  const staging = mkdtempSync(join(tmpdir(), `${tool.name}-build-`));
  try {
    const { stdout } = await execFile('go', ['mod', 'download', '-json', `${tool.module}@${tool.version}`], {
      env: goEnv,
      cwd: staging,
      timeout: 900_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const source = join(staging, 'src');
    cpSync((JSON.parse(stdout) as { Dir: string }).Dir, source, { recursive: true });
    chmodSync(source, 0o755);
    tool.prepare?.(source);
    step = 'compiling';
    const tags = tool.tags?.length ? ['-tags', tool.tags.join(',')] : [];
    await execFile('go', ['build', ...tags, '-o', join(staging, tool.name), tool.packagePath], {
      env: goEnv,
      cwd: source,
      timeout: 1_800_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    if (!(await runs(join(staging, tool.name), tool.probe)))
      throw new Error(`the built ${tool.name} does not run`);
    renameSync(join(staging, tool.name), binary);
    log(`built ${tool.title ?? tool.name} ${tool.version} into ${dir}`);
    return binary;
  } catch (error) {
    throw new Error(
      `could not build ${tool.name} ${tool.version} (needs Go and the Go module proxy): ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    stopProgress();
    rmSync(staging, { recursive: true, force: true });
  }
}
