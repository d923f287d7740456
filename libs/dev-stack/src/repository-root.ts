/** The repository root, found from wherever the dev stack runs: its source under jest, or a bundle in dist/tools. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The nearest directory above this module that holds `nx.json`. */
export function repositoryRoot(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'nx.json'))) return dir;
  }
  throw new Error(`no nx.json above ${__dirname}`);
}
