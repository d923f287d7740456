/**
 * Who may import the development stack (@platform/dev-stack) and the test kit (@platform/testing), as the lint rules
 * say it (eslint.config.mjs: Nx tags, and a named rule for bench/, which is no Nx project). Each case lints one
 * import line as if it sat in the named file, with only the two boundary rules on, so it checks the rules themselves.
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..');
const IMPORTS = {
  devStack: "import { freePort } from '@platform/dev-stack';\nexport const used = freePort;\n",
  testKit: "import { http } from '@platform/testing';\nexport const used = http;\n",
};
type Kit = keyof typeof IMPORTS;

// ESLint loads eslint.config.mjs with a dynamic import, which jest's module sandbox refuses: lint in a child process.
// The files do not exist, so no type information (neither boundary rule needs it).
const LINT = `
import { readFileSync } from 'node:fs';
import { ESLint } from 'eslint';
const rules = new Set(['@nx/enforce-module-boundaries', 'no-restricted-imports']);
const eslint = new ESLint({
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  ruleFilter: ({ ruleId }) => rules.has(ruleId),
});
const out = [];
for (const { file, text } of JSON.parse(readFileSync(0, 'utf8'))) {
  const [result] = await eslint.lintText(text, { filePath: file });
  out.push(result.messages.map((m) => (m.ruleId ?? 'parser') + ': ' + m.message));
}
process.stdout.write(JSON.stringify(out));
`;

const PRODUCTION = [
  'apps/rest/src/probe.ts',
  'apps/users/src/domain/probe.ts',
  'apps/gateway/src/probe.ts',
  'libs/mongo/src/probe.ts',
  'libs/service/src/probe.ts',
  'libs/federation/src/probe.ts',
];
const TOOLING = ['tools/launcher/probe.ts', 'tools/deployment/probe.ts', 'bench/probe.ts'];
const TESTS = [
  'apps/rest/test/probe.test.ts',
  'apps/e2e/src/probe.e2e.ts',
  'apps/e2e/src/test/probe.ts',
  'libs/mongo/src/probe.test.ts',
  'tools/launcher/probe.test.ts',
  'bench/probe.spec.ts',
];
const LIBS = ['libs/dev-stack/src/probe.ts', 'libs/testing/src/probe.ts'];

const nxEnv = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' };
let found = new Map<string, string[]>();
/** The boundary findings for an import of `kit` written in `file` (relative to the repository root). */
const findings = (file: string, kit: Kit): string[] => found.get(`${kit} ${file}`) ?? ['(not linted)'];

describe('who may import the dev stack and the test kit', () => {
  beforeAll(() => {
    // The Nx rule reads the cached project graph (`npm run lint` refreshes it the same way); without one it checks
    // nothing, and the refusals below that only the tags make would fail.
    execFileSync(join(root, 'node_modules', '.bin', 'nx'), ['show', 'projects'], {
      cwd: root,
      env: nxEnv,
      stdio: 'ignore',
      timeout: 60_000,
    });
    const cases = [...PRODUCTION, ...TOOLING, ...TESTS, ...LIBS].flatMap((file) =>
      (Object.keys(IMPORTS) as Kit[]).map((kit) => ({
        key: `${kit} ${file}`,
        file: join(root, file),
        text: IMPORTS[kit],
      })),
    );
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', LINT], {
      cwd: root,
      env: nxEnv,
      input: JSON.stringify(cases),
      encoding: 'utf8',
      timeout: 120_000,
    });
    const messages = JSON.parse(output) as string[][];
    found = new Map(cases.map((c, i) => [c.key, messages[i]!]));
  }, 180_000);

  it.each(PRODUCTION)('when production code in %s imports either, then lint refuses both', (file) => {
    expect(findings(file, 'devStack')).not.toEqual([]);
    expect(findings(file, 'testKit')).not.toEqual([]);
  });

  it.each(TOOLING)(
    'when tooling in %s (npm start, deployment checks, the bench) imports them, then only the dev stack is allowed',
    (file) => {
      expect(findings(file, 'devStack')).toEqual([]);
      expect(findings(file, 'testKit')).not.toEqual([]);
    },
  );

  it('when the dev stack imports the test kit, then lint refuses it (the kit builds on the stack, not back)', () => {
    expect(findings('libs/dev-stack/src/probe.ts', 'testKit')).not.toEqual([]);
    expect(findings('libs/testing/src/probe.ts', 'devStack')).toEqual([]);
  });

  it.each(TESTS)('when a test in %s imports them, then both are allowed', (file) => {
    expect(findings(file, 'devStack')).toEqual([]);
    expect(findings(file, 'testKit')).toEqual([]);
  });
});
