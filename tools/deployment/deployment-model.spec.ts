import { defaultPort, parseDockerfile, parseEnvironmentSchema, stageChain } from './deployment-model';

describe('parseEnvironmentSchema', () => {
  const source = [
    "import { z } from 'zod';",
    'const schema = commonEnvironment',
    '  .extend({',
    '  PORT: port(4002),',
    '  KEY: z',
    '    .string()',
    '    .optional()',
    "    .transform((v) => (v === '' ? undefined : v)),",
    "  MONGO_URL: z.string().min(1).default('mongodb://127.0.0.1:27017/'),",
    '  /** A comment line. */',
    '  SUPERGRAPH_PATH: z.string().optional(),',
    '  REQUIRED_THING: z.string().min(1),',
    '  FLAG: booleanFlag(true),',
    '  })',
    "  .refine((env) => true, { message: 'x' });",
    'const other = { NOT_ENV: 1 };',
  ].join('\n');

  it('when a schema lists variables, then each is found with whether the process starts without it', () => {
    expect(parseEnvironmentSchema(source).map((v) => [v.name, v.optional])).toEqual([
      ['PORT', true],
      ['KEY', true],
      ['MONGO_URL', true],
      ['SUPERGRAPH_PATH', true],
      ['REQUIRED_THING', false],
      ['FLAG', true],
    ]);
  });

  it('when PORT is port(N), then N is the default port', () => {
    expect(defaultPort(parseEnvironmentSchema(source))).toBe(4002);
  });

  it('when the source has no zod object, then it is an error rather than an empty list', () => {
    expect(() => parseEnvironmentSchema('export const x = 1;')).toThrow(/no z\.object/);
  });
});

describe('parseDockerfile', () => {
  const source = [
    'ARG NODE_IMAGE=node:24-bookworm-slim',
    'FROM ${NODE_IMAGE} AS runtime',
    '# comment',
    'ENV NODE_ENV=production \\',
    '    HOST=0.0.0.0',
    'USER node',
    'FROM runtime AS rest',
    'CMD ["node", "dist/apps/rest/main.js"]',
  ].join('\n');

  it('when stages inherit, then the chain of a target has the base instructions first', () => {
    const { args, stages } = parseDockerfile(source);
    expect(args).toEqual({ NODE_IMAGE: 'node:24-bookworm-slim' });
    const chain = stageChain(stages, 'rest');
    expect(chain.map((s) => s.name)).toEqual(['runtime', 'rest']);
    expect(chain.flatMap((s) => s.instructions.map((i) => i.keyword))).toEqual(['ENV', 'USER', 'CMD']);
    expect(chain[0]!.instructions[0]!.args).toBe('NODE_ENV=production HOST=0.0.0.0');
  });
});
