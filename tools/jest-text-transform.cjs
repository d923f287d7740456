// jest transform: imports of schema.graphql (includes resolved) and of .md files become their text, as esbuild's
// text loader does in the build.
const { createHash } = require('node:crypto');
const { resolveIncludes } = require('./graphql-sdl.cjs');

const textOf = (source, filename) => (filename.endsWith('.graphql') ? resolveIncludes(source) : source);

module.exports = {
  // Keyed by the resolved text, so a change in an included file is seen too.
  getCacheKey: (source, filename) =>
    createHash('sha256').update(filename).update('\0').update(textOf(source, filename)).digest('hex'),
  process(source, filename) {
    return {
      code: `module.exports = { __esModule: true, default: ${JSON.stringify(textOf(source, filename))} };`,
    };
  },
};
