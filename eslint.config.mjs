// @ts-check
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/**
 * Who may depend on whom (docs/conventions.md#layers): type:* layers and scope:* per app. No production code reaches
 * type:dev-stack (libs/dev-stack: FerretDB, redis-server, tools, the system as processes) or type:testing (libs/testing,
 * the test kit); tools/ (npm start's launcher) reaches the dev stack only; test files reach both (the override below).
 */
const depConstraints = [
  {
    sourceTag: 'type:app',
    onlyDependOnLibsWithTags: ['type:util', 'type:data-access', 'type:runtime', 'type:service'],
  },
  // type:client (libs/client, the generated REST client) is for the project's own whole-stack tests only.
  {
    sourceTag: 'type:e2e',
    onlyDependOnLibsWithTags: ['type:util', 'type:testing', 'type:dev-stack', 'type:client'],
  },
  { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:util', 'type:data-access', 'type:dev-stack'] },
  { sourceTag: 'type:client', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:util', 'type:data-access', 'type:runtime'] },
  // The process runtime (libs/service): what every process, the REST facade too, runs on.
  { sourceTag: 'type:runtime', onlyDependOnLibsWithTags: ['type:util', 'type:data-access'] },
  { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: ['type:util'] },
  {
    sourceTag: 'type:testing',
    onlyDependOnLibsWithTags: ['type:util', 'type:data-access', 'type:dev-stack'],
  },
  { sourceTag: 'type:dev-stack', onlyDependOnLibsWithTags: ['type:util'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  // The supergraph executor: the gateway process serves it, the facade may embed it (GATEWAY_MODE=embedded).
  { sourceTag: 'scope:federation', onlyDependOnLibsWithTags: ['scope:shared'] },
  // GraphQL servers (gateway, subgraphs): Apollo subgraph, MongoDB and Armor stay out of the REST facade's bundle.
  { sourceTag: 'scope:graphql-server', onlyDependOnLibsWithTags: ['scope:shared'] },
  {
    sourceTag: 'scope:gateway',
    onlyDependOnLibsWithTags: ['scope:shared', 'scope:federation', 'scope:graphql-server', 'scope:gateway'],
  },
  { sourceTag: 'scope:rest', onlyDependOnLibsWithTags: ['scope:shared', 'scope:federation', 'scope:rest'] },
  {
    sourceTag: 'scope:users',
    onlyDependOnLibsWithTags: ['scope:shared', 'scope:graphql-server', 'scope:users'],
  },
  {
    sourceTag: 'scope:items',
    onlyDependOnLibsWithTags: ['scope:shared', 'scope:graphql-server', 'scope:items'],
  },
  {
    sourceTag: 'scope:auth',
    onlyDependOnLibsWithTags: ['scope:shared', 'scope:graphql-server', 'scope:auth'],
  },
  {
    sourceTag: 'scope:posts',
    onlyDependOnLibsWithTags: ['scope:shared', 'scope:graphql-server', 'scope:posts'],
  },
  // The events service: its subgraph, and its delivery worker (which serves no GraphQL).
  {
    sourceTag: 'scope:events',
    onlyDependOnLibsWithTags: ['scope:shared', 'scope:graphql-server', 'scope:events'],
  },
  { sourceTag: 'scope:deliveries', onlyDependOnLibsWithTags: ['scope:shared', 'scope:deliveries'] },
  { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['scope:shared', 'scope:e2e'] },
];

const testFiles = ['**/*.spec.ts', '**/*.test.ts', '**/*.e2e.ts', '**/*.bench.ts', '**/test/**/*.ts'];

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', '.data/**', 'coverage/**', '.nx/**', '**/__generated__/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-process-env': 'error',
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints,
        },
      ],
    },
  },
  {
    // Tests of any project may use the test kit and the dev stack; production code may not (the tags above).
    files: testFiles,
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: ['@platform/testing', '@platform/dev-stack'],
          depConstraints,
        },
      ],
    },
  },
  {
    // bench/ is no Nx project (its runner reads apps/rest's operation table), so the tags cannot reach it: it runs on
    // the development stack, never on the test kit.
    files: ['bench/**/*.ts'],
    ignores: testFiles,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@platform/testing',
              message: 'The bench runs on @platform/dev-stack; the test kit is for tests only.',
            },
          ],
        },
      ],
    },
  },
  {
    // Only the framework each layer owns (docs/conventions.md#layers).
    files: ['apps/{users,items,auth,posts,gateway}/src/**/*.ts', 'libs/**/*.ts'],
    ignores: testFiles,
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'express', message: 'express belongs to the rest app only.' }] },
      ],
    },
  },
  {
    files: ['apps/*/src/**/*.ts', 'libs/**/*.ts'],
    ignores: [...testFiles, 'libs/federation/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='@apollo/gateway']",
          message: '@apollo/gateway is used through @platform/federation only.',
        },
        {
          // Apollo Server stops itself on SIGTERM outside NODE_ENV=test and re-sends the signal, which kills the
          // process before the service runtime (libs/service run-service.ts) has drained its requests.
          selector:
            "NewExpression[callee.name='ApolloServer']:not(:has(Property[key.name='stopOnTerminationSignals'][value.value=false]))",
          message: 'Build ApolloServer with stopOnTerminationSignals: false: the service runtime owns SIGTERM.',
        },
      ],
    },
  },
  {
    // environment.ts is the one place per service that reads process.env; the config lib, dev stack and test kit too.
    files: [
      '**/environment.ts',
      'libs/config/**/*.ts',
      'libs/testing/**/*.ts',
      'libs/dev-stack/**/*.ts',
      ...testFiles,
      'tools/**',
      'bench/**',
    ],
    rules: { 'no-process-env': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
      },
    },
    rules: { 'no-process-env': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Test helpers hand back parsed JSON bodies; tests assert on them field by field.
    files: ['libs/testing/src/http-client.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
