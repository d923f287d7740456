// Tiers by suffix (docs/conventions.md#tests): *.spec.ts unit (no I/O); *.test.ts component (the run's FerretDB and
// redis-server, no process of the system); *.e2e.ts the whole system as real processes. Each tier's globalSetup runs
// only when one of its files is selected, so `jest --selectProjects unit component` boots no process of the system.
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
  // Component and e2e tests talk to real servers on a shared 2-core machine; testTimeout is a global option in jest 30.
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools,bench}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'component',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.test.ts'],
      globalSetup: '<rootDir>/libs/testing/src/jest/component-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/jest/component-teardown.ts',
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.e2e.ts'],
      globalSetup: '<rootDir>/libs/testing/src/jest/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/jest/global-teardown.ts',
    },
  ],
};
