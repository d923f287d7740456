// Loads a schema.graphql with its `# @include <path from the repo root>` lines replaced by that file's text, so SDL
// shared by several subgraphs (libs/listing/src/listing.graphql) is written once. Used by the esbuild text loader
// and the supergraph composition in tools/build.mjs, and by jest's transform: every consumer sees the same SDL.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const INCLUDE = /^#\s*@include\s+(\S+)\s*$/gm;

function resolveIncludes(text) {
  return text.replace(INCLUDE, (_line, relative) => readFileSync(join(ROOT, relative), 'utf8'));
}

function loadSdl(file) {
  return resolveIncludes(readFileSync(file, 'utf8'));
}

module.exports = { loadSdl, resolveIncludes };
