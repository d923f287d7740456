/** The launcher passes every documented setting on: its list comes from the schemas, not from a hand-kept list. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LAUNCHER_OWNED, declaredVariables, passThrough } from './launcher-variables';

const root = resolve(__dirname, '..', '..');

/** The variable names of README's configuration table (first column, each in backticks). */
function readmeVariables(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Layout'));
  const names = new Set<string>();
  for (const line of table.split('\n')) {
    const first = line.split('|')[1] ?? '';
    for (const match of first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(match[1]!);
  }
  return [...names];
}

describe('npm start passes settings through', () => {
  it('when README documents a variable, then a process declares it, and npm start passes it unless it sets it itself', () => {
    const declared = declaredVariables(root);
    const documented = readmeVariables();
    expect(documented.length).toBeGreaterThan(30);
    const env = Object.fromEntries(documented.map((name) => [name, 'x']));
    const passed = passThrough(root, env);
    for (const name of documented) {
      expect({ name, declared: declared.includes(name) }).toEqual({ name, declared: true });
      expect({ name, reaches: name in passed || LAUNCHER_OWNED.has(name) }).toEqual({ name, reaches: true });
    }
  });

  it('when the caller sets something no process reads, then it is not passed on', () => {
    expect(
      passThrough(root, { PATH: '/bin', SOMETHING_ELSE: '1', REFRESH_TOKEN_TTL: '60', OTEL_TRACES_SAMPLER: 'always_on' }),
    ).toEqual({ REFRESH_TOKEN_TTL: '60', OTEL_TRACES_SAMPLER: 'always_on' });
  });
});
