// GraphQL code generation (codegen.ts) into the `__generated__` folders, which are not checked in: `npm run lint`,
// `npm run typecheck` and tools/build.mjs run this first, so a fresh clone builds. The run is skipped when its inputs
// hash the same as the last run's (the hash is stored beside each output as `.inputs-hash`), so repeated builds stay
// fast. The caching is hand-written: the codegen CLI has no input cache of its own, and the inputs are a few files.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(root, 'node_modules', '@graphql-codegen', 'cli', 'esm', 'bin.js');
const INCLUDE = /^#\s*@include\s+(\S+)\s*$/gm;
const SUBGRAPHS = ['auth', 'users', 'items', 'posts'];
/** Where codegen.ts writes (one folder per generated file). */
export const OUTPUT_DIRS = [
  ...SUBGRAPHS.map((name) => join('apps', name, 'src', '__generated__')),
  join('apps', 'rest', 'src', 'operations', '__generated__'),
];
const HASH_FILE = '.inputs-hash';
const sdl = createRequire(import.meta.url)('./graphql-sdl.cjs');
/** The facade's documents derived from the resource declarations (fragments, pages, record operations). */
export const RESOURCE_DOCUMENTS = join('apps', 'rest', 'src', 'operations', '__generated__', 'resources.graphql');

/**
 * What the output depends on: the config, the plugin versions, the schemas with their includes, the documents. The
 * resource declarations are TypeScript; what they contribute is hashed as the SDL and documents they derive.
 */
function inputFiles() {
  const operations = join('apps', 'rest', 'src', 'operations');
  const files = [
    'codegen.ts',
    'package-lock.json',
    join('tools', 'graphql-sdl.cjs'),
    join('schema', 'api.graphql'),
  ];
  for (const name of SUBGRAPHS) {
    const schema = join('apps', name, 'src', 'schema.graphql');
    files.push(schema);
    for (const [, included] of readFileSync(join(root, schema), 'utf8').matchAll(INCLUDE))
      files.push(included);
  }
  files.push(
    ...readdirSync(join(root, operations))
      .filter((f) => f.endsWith('.graphql'))
      .map((f) => join(operations, f)),
  );
  return [...new Set(files)].sort();
}

export function inputsHash(documents = sdl.facadeDocuments()) {
  const hash = createHash('sha256');
  for (const file of inputFiles())
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  for (const name of SUBGRAPHS) hash.update(sdl.loadSdl(join(root, 'apps', name, 'src', 'schema.graphql'))).update('\0');
  return hash.update(documents).digest('hex');
}

/** Runs codegen unless every output folder holds the current inputs' hash; returns whether it ran. */
export function generate({ force = false } = {}) {
  const documents = sdl.facadeDocuments();
  const hash = inputsHash(documents);
  const current = (dir) => {
    const file = join(root, dir, HASH_FILE);
    return existsSync(file) && readFileSync(file, 'utf8').trim() === hash;
  };
  if (!force && OUTPUT_DIRS.every(current)) return false;
  mkdirSync(join(root, dirname(RESOURCE_DOCUMENTS)), { recursive: true });
  writeFileSync(join(root, RESOURCE_DOCUMENTS), documents);
  // The CLI in a child process: it loads codegen.ts (TypeScript) and ES-module plugins itself.
  const run = spawnSync(process.execPath, [CLI, '--config', join(root, 'codegen.ts')], {
    cwd: root,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`graphql-codegen failed:\n${run.stdout}${run.stderr}`);
  for (const dir of OUTPUT_DIRS) writeFileSync(join(root, dir, HASH_FILE), `${hash}\n`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const started = Date.now();
    if (generate({ force: process.argv.includes('--force') })) {
      process.stdout.write(`generated GraphQL types in ${Date.now() - started} ms\n`);
    }
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
