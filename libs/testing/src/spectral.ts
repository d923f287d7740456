/**
 * Lints OpenAPI documents with Spectral (`@stoplight/spectral-cli`, a pinned devDependency) under the repository's
 * ruleset `.spectral.yaml` (spectral:oas + the OWASP API Security ruleset, with the spec's own choices waived).
 */
import { execFile as execFileCallback } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repositoryRoot } from '@platform/dev-stack';

const execFile = promisify(execFileCallback);
const ROOT = repositoryRoot();

export interface SpectralFinding {
  code: string;
  message: string;
  path: string;
  severity: 'error' | 'warning' | 'info' | 'hint';
  document: string;
}

const SEVERITIES = ['error', 'warning', 'info', 'hint'] as const;

/** Every finding for the named documents; `ruleset` defaults to the repository's `.spectral.yaml`. */
export async function lintOpenApi(
  documents: Record<string, unknown>,
  ruleset = join(ROOT, '.spectral.yaml'),
): Promise<SpectralFinding[]> {
  const dir = mkdtempSync(join(tmpdir(), 'spectral-'));
  try {
    const files = Object.entries(documents).map(([name, document]) => {
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(document));
      return file;
    });
    const output = join(dir, 'results.json');
    const cli = join(ROOT, 'node_modules', '@stoplight', 'spectral-cli', 'dist', 'index.js');
    // Exit code 1 means "errors found": the results file says which; anything without that file is a real failure.
    await execFile(
      process.execPath,
      [cli, 'lint', '-r', ruleset, '-f', 'json', '-o', output, '-q', ...files],
      {
        cwd: ROOT,
        // Four documents take ~40 s on a quiet 2-core machine and three times that when it is loaded; the tests
        // allow 300 s.
        timeout: 270_000,
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((error: unknown) => {
      try {
        readFileSync(output);
      } catch {
        throw error;
      }
    });
    const results = JSON.parse(readFileSync(output, 'utf8')) as Array<{
      code: string | number;
      message: string;
      path: Array<string | number>;
      severity: number;
      source?: string;
    }>;
    return results.map((result) => ({
      code: String(result.code),
      message: result.message,
      path: result.path.join('.'),
      severity: SEVERITIES[result.severity] ?? 'error',
      document: (result.source ?? '').replace(`${dir}/`, '').replace(/\.json$/, ''),
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
