/**
 * The checked-in GraphQL code generation output (every `__generated__` folder) is what `npm run codegen` gives from
 * today's schemas and documents: CI fails when a schema or a facade document changed and the types were not
 * regenerated, or when a generated file was edited by hand.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The root codegen config is a workspace file, not a project: Nx's boundary rule has nothing to check there.
// eslint-disable-next-line @nx/enforce-module-boundaries
import config from '../codegen';

const ROOT = join(__dirname, '..');
// The CLI in a child process, as `npm run codegen` runs it (it loads ES modules jest's module system does not).
const CLI = join(ROOT, 'node_modules', '@graphql-codegen', 'cli', 'esm', 'bin.js');

describe('GraphQL code generation', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'codegen-check-'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when codegen runs again into a temp dir, then each output equals the checked-in file', () => {
    const run = spawnSync(process.execPath, [CLI, '--config', join(ROOT, 'codegen.ts')], { cwd: dir, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const stale = Object.keys(config.generates).filter((path) => {
      const committed = join(ROOT, path);
      return !existsSync(committed) || readFileSync(committed, 'utf8') !== readFileSync(join(dir, path), 'utf8');
    });
    if (stale.length > 0) {
      throw new Error(`Generated GraphQL types are out of date: run \`npm run codegen\` and commit:\n  ${stale.join('\n  ')}`);
    }
  });
});
