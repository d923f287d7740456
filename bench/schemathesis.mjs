// `node bench/schemathesis.mjs [--max-examples N] [--seed S]` (after tools/build.mjs): a longer Schemathesis run than
// the test suite's; the runner is TypeScript (bench/schemathesis-cli.ts), bundled into dist/tools.
await import('../dist/tools/bench-schemathesis.js');
