// jest transform: imports of schema.graphql become their SDL text, as esbuild's `text` loader does in the build.
module.exports = {
  process(source) {
    return { code: `module.exports = { __esModule: true, default: ${JSON.stringify(source)} };` };
  },
};
