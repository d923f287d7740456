/** Nx knows every project's four targets and which projects a change touches (`nx affected -t test`). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..');
// Offline and without a daemon, as CI runs it.
const nx = (...args: string[]): string =>
  execFileSync(join(root, 'node_modules', '.bin', 'nx'), args, {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
    timeout: 60_000,
  });

interface Graph {
  nodes: Record<string, { data: { root: string; targets: Record<string, unknown> } }>;
}

function projectGraph(): Graph {
  const dir = mkdtempSync(join(tmpdir(), 'nx-graph-'));
  try {
    nx('graph', `--file=${join(dir, 'graph.json')}`);
    return (JSON.parse(readFileSync(join(dir, 'graph.json'), 'utf8')) as { graph: Graph }).graph;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The TypeScript files below a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const affectedBy = (file: string): string[] =>
  nx('show', 'projects', '--affected', `--files=${file}`).trim().split('\n').sort();

describe('nx projects', () => {
  const graph = projectGraph();

  it('when nx reads the workspace, then every project has build, test, lint and typecheck targets', () => {
    const projects = Object.entries(graph.nodes);
    expect(projects.length).toBeGreaterThan(20);
    for (const [name, node] of projects) {
      expect({ name, targets: Object.keys(node.data.targets).sort() }).toEqual({
        name,
        targets: expect.arrayContaining(['build', 'lint', 'test', 'typecheck']),
      });
    }
  });

  it('when a lib changes, then nx lists the lib and every project whose code imports it as affected', () => {
    const importers = Object.entries(graph.nodes)
      .filter(
        ([name, node]) =>
          name !== 'lib-errors' &&
          sources(join(root, node.data.root)).some((file) =>
            readFileSync(file, 'utf8').includes("'@platform/errors'"),
          ),
      )
      .map(([name]) => name);
    expect(importers).toEqual(expect.arrayContaining(['rest', 'users', 'lib-graphql-server']));
    const affected = affectedBy('libs/errors/src/index.ts');
    expect(affected).toEqual(expect.arrayContaining(['lib-errors', ...importers]));
    // What neither imports it nor depends on an importer stays out.
    expect(affected).not.toContain('lib-logging');
  });

  it('when a subgraph schema changes, then the gateway that composes it is affected, and the other subgraphs are not', () => {
    const affected = affectedBy('apps/users/src/schema.graphql');
    expect(affected).toEqual(expect.arrayContaining(['users', 'gateway', 'rest', 'e2e']));
    expect(affected).not.toContain('items');
  });
});
