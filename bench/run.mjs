// `npm run bench` (after tools/build.mjs): the runner is TypeScript (bench/bench-cli.ts), bundled into dist/tools.
await import('../dist/tools/bench.js');
