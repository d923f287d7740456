// Builds every app into dist/ (esbuild; node_modules stay external) and composes the supergraph from the
// subgraph schemas with @apollo/composition. A composition error fails the build, and so CI, and so does a composed
// API schema that differs from the committed schema/api.graphql (tools/schema-check.cjs).
import { build, stop as stopEsbuild } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kind, parse } from 'graphql';
import { generate as generateGraphqlTypes } from './codegen.mjs';
import sdl from './graphql-sdl.cjs';
import schemaCheck from './schema-check.cjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const APPS = ['users', 'items', 'auth', 'posts', 'events', 'deliveries', 'gateway', 'rest'];
export const SUBGRAPHS = schemaCheck.SUBGRAPHS;

/**
 * The supergraph, composed from the subgraph schemas; a composition error throws. Its API schema must be the committed
 * schema/api.graphql (tools/schema-check.cjs), so a schema change cannot reach clients unrecorded and unclassified.
 */
export async function composeSupergraph() {
  const { supergraphSdl, apiSdl } = schemaCheck.compose();
  await schemaCheck.checkApiSchema(apiSdl);
  return supergraphSdl;
}

/**
 * The gateway's GraphQL IDE for browsers: GraphiQL, React and the page's script in one bundle with its stylesheet
 * (dist/apps/gateway/graphiql/graphiql.{js,css}), served by the gateway itself, so the IDE works without a CDN.
 */
export async function buildGraphiQL() {
  await build({
    entryPoints: { graphiql: join(root, 'apps', 'gateway', 'src', 'ide', 'graphiql-browser.ts') },
    outdir: join(root, 'dist', 'apps', 'gateway', 'graphiql'),
    bundle: true,
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari16'],
    format: 'iife',
    minify: true,
    legalComments: 'linked',
    define: { 'process.env.NODE_ENV': '"production"' },
    loader: { '.woff': 'dataurl', '.woff2': 'dataurl', '.ttf': 'dataurl', '.svg': 'dataurl', '.png': 'dataurl' },
    tsconfig: join(root, 'tsconfig.json'),
    logLevel: 'warning',
  });
}

/**
 * The trusted-documents manifest (Apollo's persisted-query manifest format): the REST facade's fixed documents
 * (ALL_OPERATIONS of apps/rest/src/gateway/gateway-client.ts, read from the code itself) and every operation
 * internal teams registered in schema/operations/*.graphql (one operation per file). The gateway loads it with
 * TRUSTED_DOCUMENTS=on.
 */
export async function trustedDocumentsManifest() {
  const bundled = await build({
    entryPoints: [join(root, 'apps', 'rest', 'src', 'gateway', 'gateway-client.ts')],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    // The documents are plain strings; what the gateway client imports (the platform libs, undici, ...) is not
    // needed to read them, and some of it needs a newer Node than the one a build may run on.
    plugins: [
      {
        name: 'stub-imports',
        setup(plugin) {
          plugin.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, namespace: 'stub' }));
          plugin.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
        },
      },
    ],
    logLevel: 'warning',
  });
  const module = { exports: {} };
  new Function('module', 'exports', bundled.outputFiles[0].text)(module, module.exports);
  const documents = module.exports.ALL_OPERATIONS.map((op) => op.document);
  const registered = join(root, 'schema', 'operations');
  if (existsSync(registered)) {
    for (const file of readdirSync(registered).filter((f) => f.endsWith('.graphql')).sort()) {
      documents.push(readFileSync(join(registered, file), 'utf8'));
    }
  }
  const operations = new Map();
  for (const body of documents) {
    const definitions = parse(body).definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    if (definitions.length !== 1 || !definitions[0].name) {
      throw new Error(`trusted documents: each document holds exactly one named operation:\n${body}`);
    }
    const id = createHash('sha256').update(body).digest('hex');
    operations.set(id, { id, name: definitions[0].name.value, type: definitions[0].operation, body });
  }
  return { format: 'apollo-persisted-query-manifest', version: 1, operations: [...operations.values()] };
}

/** What every Node bundle shares: node_modules stay external, `.graphql` files are inlined as SDL. */
const NODE_BUNDLE = {
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  packages: 'external',
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
};

const appEntry = (app) => [`apps/${app}/main`, join(root, 'apps', app, 'src', 'main.ts')];

/**
 * What the gateway and the facade read beside their bundles: the composed supergraph (the facade reads it with
 * GATEWAY_MODE=embedded), and for the gateway its IDE and the trusted-documents manifest. Composition also checks the
 * committed schema/api.graphql, so every subgraph's build runs it.
 */
async function finishApps(apps) {
  const gateway = apps.includes('gateway');
  if (gateway) await buildGraphiQL();
  const manifest = gateway ? await trustedDocumentsManifest() : undefined;
  // esbuild keeps a service process; end it so `npm start` leaves no child of its own behind.
  await stopEsbuild();
  const supergraph = await composeSupergraph();
  for (const app of apps.filter((name) => name === 'gateway' || name === 'rest')) {
    mkdirSync(join(root, 'dist', 'apps', app), { recursive: true });
    writeFileSync(join(root, 'dist', 'apps', app, 'supergraph.graphql'), supergraph);
  }
  if (manifest) {
    writeFileSync(join(root, 'dist', 'apps', 'gateway', 'trusted-documents.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  }
}

export async function buildAll() {
  const started = Date.now();
  // The generated GraphQL types and documents (not checked in) the sources import; skipped when up to date.
  generateGraphqlTypes();
  const entryPoints = Object.fromEntries([
    ...APPS.map(appEntry),
    ['tools/start-system', join(root, 'tools', 'launcher', 'start-system.ts')],
    // `npm run bench`: the runner and its floor server (bench/).
    ['tools/bench', join(root, 'bench', 'bench-cli.ts')],
    ['tools/bench-direct', join(root, 'bench', 'direct-server.ts')],
    // The docs-default baseline (express facade -> @apollo/gateway -> @apollo/subgraph), started by the runner.
    ...['facade', 'gateway', 'subgraph'].map((part) => [`tools/bench-baseline-${part}`, join(root, 'bench', 'baseline', `baseline-${part}.ts`)]),
    // The peer gateway: Hive Gateway's CLI loads this config (bench/hive), the baseline facade stands in front of it.
    ['tools/bench-hive-gateway.config', join(root, 'bench', 'hive', 'hive-gateway.config.ts')],
    // `npm run bench:limits`: the CPU the GraphQL limits add per gateway operation (bench/limits-cost.ts).
    ['tools/bench-limits', join(root, 'bench', 'limits-cost.ts')],
    // bench/schemathesis.mjs: the long Schemathesis run.
    ['tools/bench-schemathesis', join(root, 'bench', 'schemathesis-cli.ts')],
    ['tools/bench-metrics-cost', join(root, 'bench', 'metrics-cost.ts')],
    // `npm run bench:sizing`: FerretDB v1's cost per query shape as the users collection grows (bench/sizing.ts).
    ['tools/bench-sizing', join(root, 'bench', 'sizing.ts')],
    // `npm run bench:capacity`: memory and CPU per app under load, held to the k8s manifests' limits (bench/capacity.ts).
    ['tools/bench-capacity', join(root, 'bench', 'capacity.ts')],
    // `npm run bench:events`: the write path's cost with events on vs off, and the delivery lag (bench/events-cost.ts).
    ['tools/bench-events', join(root, 'bench', 'events-cost.ts')],
  ]);
  await build({ ...NODE_BUNDLE, entryPoints, outdir: join(root, 'dist'), sourcemap: 'linked' });
  await finishApps(APPS);
  process.stdout.write(`built ${APPS.length} apps and the supergraph in ${Date.now() - started} ms\n`);
}

/**
 * One Nx project's `build` target (`node tools/build.mjs --project=<name>`): an app builds its own bundle (and what it
 * reads beside it); a lib has no bundle of its own (esbuild inlines it into each app), so its build checks that its
 * public entry (src/index.ts) bundles; e2e and tools need every app, so they run the whole build.
 */
export async function buildProject(name) {
  const started = Date.now();
  generateGraphqlTypes();
  if (APPS.includes(name)) {
    await build({ ...NODE_BUNDLE, entryPoints: Object.fromEntries([appEntry(name)]), outdir: join(root, 'dist'), sourcemap: 'linked' });
    await finishApps([name]);
  } else if (name.startsWith('lib-')) {
    const entry = join(root, 'libs', name.slice('lib-'.length), 'src', 'index.ts');
    await build({ ...NODE_BUNDLE, entryPoints: [entry], write: false });
    await stopEsbuild();
  } else {
    await buildAll();
    return;
  }
  process.stdout.write(`built ${name} in ${Date.now() - started} ms\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const project = process.argv.find((arg) => arg.startsWith('--project='))?.slice('--project='.length);
  (project ? buildProject(project) : buildAll()).catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
