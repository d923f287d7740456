// Renders a kustomize overlay offline with a pinned kustomize (v5.5.0): built once from the Go module proxy into
// ~/.cache/api-platform/ (`go mod download -json` + `go build`: the proxy here refuses the version list that
// `go install pkg@version` asks for), or, without Go, the kustomize built into kubectl (`kubectl kustomize`).
// CLI: node tools/deployment/kustomize.mjs k8s/overlays/dev   (prints the rendered manifests)
import { execFile as execFileCallback } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFile = promisify(execFileCallback);

export const KUSTOMIZE_MODULE = 'sigs.k8s.io/kustomize/kustomize/v5';
export const KUSTOMIZE_VERSION = 'v5.5.0';

function cacheDir() {
  const base = process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache');
  return join(base, 'api-platform', `kustomize-${KUSTOMIZE_VERSION}`);
}

async function runs(command, args) {
  try {
    await execFile(command, args, { timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

async function buildFromGoProxy(log) {
  const dir = cacheDir();
  const binary = join(dir, 'kustomize');
  if (await runs(binary, ['version'])) return binary;
  mkdirSync(dir, { recursive: true });
  log(`building kustomize ${KUSTOMIZE_VERSION} from the Go module proxy into ${dir} (first run only)`);
  const goEnv = {
    ...process.env,
    GOFLAGS: '-mod=mod',
    GOTOOLCHAIN: process.env['GOTOOLCHAIN'] ?? 'local',
    CGO_ENABLED: '0',
  };
  const staging = mkdtempSync(join(tmpdir(), 'kustomize-build-'));
  try {
    const { stdout } = await execFile(
      'go',
      ['mod', 'download', '-json', `${KUSTOMIZE_MODULE}@${KUSTOMIZE_VERSION}`],
      {
        env: goEnv,
        cwd: staging,
        timeout: 600_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const source = join(staging, 'src');
    cpSync(JSON.parse(stdout).Dir, source, { recursive: true });
    chmodSync(source, 0o755);
    await execFile('go', ['build', '-o', join(staging, 'kustomize'), '.'], {
      env: goEnv,
      cwd: source,
      timeout: 900_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    if (!(await runs(join(staging, 'kustomize'), ['version'])))
      throw new Error('the built kustomize does not run');
    renameSync(join(staging, 'kustomize'), binary);
    return binary;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The command that renders an overlay: [command, ...args before the directory]. */
export async function ensureKustomize(log = () => undefined) {
  const cached = join(cacheDir(), 'kustomize');
  if (existsSync(cached) && (await runs(cached, ['version']))) return [cached, 'build'];
  if (await runs('go', ['version'])) {
    try {
      return [await buildFromGoProxy(log), 'build'];
    } catch (error) {
      log(
        `could not build kustomize from the Go module proxy: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  if (await runs('kubectl', ['version', '--client'])) return ['kubectl', 'kustomize'];
  throw new Error(
    `kustomize ${KUSTOMIZE_VERSION} is not available: install Go (to build it from the Go module proxy) or kubectl`,
  );
}

/** Renders one kustomization directory and returns the multi-document YAML. */
export async function renderKustomization(dir, log) {
  const [command, ...args] = await ensureKustomize(log);
  const { stdout } = await execFile(command, [...args, dir], {
    timeout: 120_000,
    maxBuffer: 32 * 1024 * 1024,
  });
  return stdout;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: node tools/deployment/kustomize.mjs <kustomization dir>\n');
    process.exit(2);
  }
  renderKustomization(dir, (m) => process.stderr.write(`${m}\n`)).then(
    (yaml) => process.stdout.write(yaml),
    (error) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
