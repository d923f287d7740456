// Builds every app into dist/ (esbuild; node_modules stay external) and composes the supergraph from the
// subgraph schemas with @apollo/composition. A composition error fails the build, and so CI.
import { build, stop as stopEsbuild } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeServices } from '@apollo/composition';
import { parse } from 'graphql';
import sdl from './graphql-sdl.cjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const APPS = ['users', 'items', 'auth', 'posts', 'gateway', 'rest'];
export const SUBGRAPHS = ['users', 'items', 'auth', 'posts'];

export function composeSupergraph() {
  const result = composeServices(
    SUBGRAPHS.map((name) => ({
      name,
      typeDefs: parse(sdl.loadSdl(join(root, 'apps', name, 'src', 'schema.graphql'))),
      url: `http://${name}.invalid/graphql`,
    })),
  );
  if (result.errors) {
    throw new Error(
      `supergraph composition failed:\n${result.errors.map((e) => `  - ${e.message}`).join('\n')}`,
    );
  }
  return result.supergraphSdl;
}

export async function buildAll() {
  const started = Date.now();
  const entryPoints = Object.fromEntries([
    ...APPS.map((app) => [`apps/${app}/main`, join(root, 'apps', app, 'src', 'main.ts')]),
    ['tools/start-system', join(root, 'libs', 'testing', 'src', 'start-system-cli.ts')],
    // `npm run bench`: the runner and its floor server (bench/).
    ['tools/bench', join(root, 'bench', 'bench-cli.ts')],
    ['tools/bench-direct', join(root, 'bench', 'direct-server.ts')],
    ['tools/bench-metrics-cost', join(root, 'bench', 'metrics-cost.ts')],
  ]);
  await build({
    entryPoints,
    outdir: join(root, 'dist'),
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    packages: 'external',
    sourcemap: 'linked',
    loader: { '.md': 'text' },
    plugins: [
      {
        name: 'graphql-sdl',
        setup(plugin) {
          plugin.onLoad({ filter: /\.graphql$/ }, (args) => ({
            contents: sdl.loadSdl(args.path),
            loader: 'text',
          }));
        },
      },
    ],
    tsconfig: join(root, 'tsconfig.json'),
    logLevel: 'warning',
  });
  // esbuild keeps a service process; end it so `npm start` leaves no child of its own behind.
  await stopEsbuild();
  const supergraph = composeSupergraph();
  // Beside the gateway's bundle, and the facade's (which reads it with GATEWAY_MODE=embedded).
  for (const app of ['gateway', 'rest']) {
    mkdirSync(join(root, 'dist', 'apps', app), { recursive: true });
    writeFileSync(join(root, 'dist', 'apps', app, 'supergraph.graphql'), supergraph);
  }
  process.stdout.write(`built ${APPS.length} apps and the supergraph in ${Date.now() - started} ms\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildAll().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
