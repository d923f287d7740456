// Test kinds by suffix (docs/conventions.md#tests): *.spec.ts unit (no I/O); *.test.ts component and *.e2e.ts whole
// stack, both against the real processes, FerretDB and redis-server that globalSetup starts once per run.
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias}$`, `<rootDir>/${target}`]),
);

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleNameMapper,
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' }, module: { type: 'commonjs' } }],
    '^.+\\.(graphql|md)$': '<rootDir>/tools/jest-text-transform.cjs',
  },
  moduleFileExtensions: ['ts', 'js', 'json', 'graphql', 'md'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.data/'],
};

module.exports = {
  maxWorkers: 2,
  // Stack tests talk to real processes on a shared 2-core machine; testTimeout is a global option in jest 30.
  testTimeout: 60_000,
  testSequencer: '<rootDir>/tools/jest-sequencer.cjs',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools,bench}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'stack',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.test.ts', '<rootDir>/apps/**/*.e2e.ts'],
      globalSetup: '<rootDir>/libs/testing/src/jest/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/jest/global-teardown.ts',
    },
  ],
};
