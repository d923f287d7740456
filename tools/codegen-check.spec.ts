/**
 * The checked-in GraphQL code generation output (every `__generated__` folder) is what `npm run codegen` gives from
 * today's schemas and documents: CI fails when a schema or a facade document changed and the types were not
 * regenerated, when a generated file was edited by hand, or when one is left over that codegen no longer writes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
// The CLI in a child process, as `npm run codegen` runs it (it loads ES modules jest's module system does not).
const CLI = join(ROOT, 'node_modules', '@graphql-codegen', 'cli', 'esm', 'bin.js');

/** Every file under a `__generated__` folder of apps/, relative to `root`. */
const generatedFiles = (root: string): string[] =>
  existsSync(join(root, 'apps'))
    ? readdirSync(join(root, 'apps'), { recursive: true, encoding: 'utf8' })
        .filter((path) => path.split('/').includes('__generated__') && path.endsWith('.ts'))
        .map((path) => join('apps', path))
        .sort()
    : [];

describe('GraphQL code generation', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'codegen-check-'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when codegen runs again into a temp dir, then its output is exactly the checked-in __generated__ files', () => {
    const run = spawnSync(process.execPath, [CLI, '--config', join(ROOT, 'codegen.ts')], { cwd: dir, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const fresh = generatedFiles(dir);
    expect(fresh.length).toBeGreaterThan(0);
    const committed = generatedFiles(ROOT);
    const stale = [...new Set([...fresh, ...committed])].filter(
      (path) =>
        !fresh.includes(path) ||
        !committed.includes(path) ||
        readFileSync(join(ROOT, path), 'utf8') !== readFileSync(join(dir, path), 'utf8'),
    );
    if (stale.length > 0) {
      throw new Error(`Generated GraphQL types are out of date: run \`npm run codegen\` and commit:\n  ${stale.join('\n  ')}`);
    }
  });
});
