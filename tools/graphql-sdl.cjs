// Loads a schema.graphql with its `# @include <path from the repo root>` lines replaced by that file's text, so SDL
// shared by several subgraphs (libs/listing/src/listing.graphql) is written once, and its `# @resource <part> <name>...` lines
// replaced by the SDL the resource declarations derive (libs/contracts/src/resources: types, filters, connections,
// inputs). Used by the esbuild text loader and the supergraph composition in tools/build.mjs, by codegen and by jest's
// transform: every consumer sees the same SDL. The declarations are TypeScript, so they are bundled with esbuild and
// evaluated once per process (the facade's generated documents come from the same module: facadeDocuments).
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const INCLUDE = /^#\s*@include\s+(\S+)\s*$/gm;
const RESOURCE = /^#\s*@resource\s+(\w+)\s+([\w ]+?)\s*$/gm;
const DECLARATIONS = join(ROOT, 'libs', 'contracts', 'src', 'resources', 'index.ts');

let declarations;

/** The resource declarations module (subgraphSdl, facadeResourceDocuments), bundled and evaluated once. */
function loadDeclarations() {
  if (declarations) return declarations;
  const { buildSync } = require('esbuild');
  const { outputFiles } = buildSync({
    entryPoints: [DECLARATIONS],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    packages: 'external',
    tsconfig: join(ROOT, 'tsconfig.json'),
    logLevel: 'error',
  });
  const module = { exports: {} };
  new Function('module', 'exports', 'require', outputFiles[0].text)(module, module.exports, require);
  declarations = module.exports;
  return declarations;
}

function resolveIncludes(text) {
  return text
    .replace(INCLUDE, (_line, relative) => readFileSync(join(ROOT, relative), 'utf8'))
    .replace(RESOURCE, (_line, part, names) => loadDeclarations().subgraphSdl(part, names.split(/\s+/)));
}

function loadSdl(file) {
  return resolveIncludes(readFileSync(file, 'utf8'));
}

/** The facade's documents derived from the declarations (fragments, listing pages, record operations). */
const facadeDocuments = () => loadDeclarations().facadeResourceDocuments();

module.exports = { loadSdl, resolveIncludes, facadeDocuments };
