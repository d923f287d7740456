/** The launcher passes every documented setting on: its list comes from the schemas, not from a hand-kept list. */
import { resolve } from 'node:path';
import { LAUNCHER_OWNED, declaredVariables, documentedVariables, passThrough } from './launcher-variables';

const root = resolve(__dirname, '..', '..');

describe('npm start passes settings through', () => {
  it('when README documents a variable, then a process declares it, and npm start passes it unless it sets it itself', () => {
    const declared = declaredVariables(root);
    const documented = documentedVariables(root);
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

  it("when the caller sets NODE_OPTIONS (a heap limit), then every process gets it: Node reads it, no environment.ts", () => {
    expect(passThrough(root, { NODE_OPTIONS: '--max-old-space-size=384' })).toEqual({
      NODE_OPTIONS: '--max-old-space-size=384',
    });
  });

  it('when a subgraph extends the shared MongoDB settings, then npm start passes them on too', () => {
    // MONGO_INDEXES is the launcher's own: its FerretDB has no index Job, so the subgraphs build them at start.
    expect(passThrough(root, { MONGO_INDEXES: 'verify', MONGO_ALLOW_STANDALONE: 'true' })).toEqual({
      MONGO_ALLOW_STANDALONE: 'true',
    });
  });
});
