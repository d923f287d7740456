// `npm start`: builds, then runs the whole system (tools/start-system in dist, from libs/dev-stack) in this process,
// so signals from npm reach it directly and it stops every child, FerretDB included.
import { buildAll } from './build.mjs';

try {
  // SKIP_BUILD=1 runs what dist/ already holds (the npm-start test does, while other tests use dist/).
  if (process.env.SKIP_BUILD !== '1') await buildAll();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
await import('../dist/tools/start-system.js');
