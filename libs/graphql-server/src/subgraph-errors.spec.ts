/**
 * A subgraph's answer and log line for each kind of failure, through ApolloServer.executeOperation (no HTTP): database
 * errors mapped once (CONFLICT, SERVICE_UNAVAILABLE), anything else a generic 500 whose cause is logged.
 */
import { Writable } from 'node:stream';
import { MongoServerError, MongoServerSelectionError, type TopologyDescription } from 'mongodb';
import { AppError } from '@platform/errors';
import { createLogger } from '@platform/logging';
import { createSubgraphServer } from './subgraph-server';
import { serverFaultLogPlugin } from './subgraph-errors';

function capture() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map(
        (line) =>
          JSON.parse(line) as { level: number; msg: string; err?: { message?: string; type?: string } },
      );
  return { stream, lines };
}

const typeDefs = 'type Query { bug: Int, down: Int, duplicate: Int, missing: Int }';
const resolvers = {
  Query: {
    bug: () => {
      throw new TypeError("Cannot read properties of undefined (reading 'secret')");
    },
    down: () => {
      throw new MongoServerSelectionError('connect ECONNREFUSED 127.0.0.1:27017', {} as TopologyDescription);
    },
    duplicate: () => {
      throw new MongoServerError({
        ok: 0,
        code: 1,
        errmsg: 'ERROR: duplicate key value violates unique constraint "x_1a2b3c4d_email_unique_5e6f7a8b_idx" (SQLSTATE 23505)',
      });
    },
    missing: () => {
      throw new AppError('NOT_FOUND', 'Thing 1 not found');
    },
  },
};

async function run(field: string) {
  const out = capture();
  const logger = createLogger('test', 'info', out.stream);
  const server = createSubgraphServer<{ logger: typeof logger }>(typeDefs, resolvers, { production: true });
  server.addPlugin(serverFaultLogPlugin(logger));
  await server.start();
  try {
    const response = await server.executeOperation({ query: `{ ${field} }` }, { contextValue: { logger } });
    const body = response.body.kind === 'single' ? response.body.singleResult : undefined;
    logger.flush();
    return { errors: body?.errors ?? [], lines: out.lines() };
  } finally {
    await server.stop();
  }
}

describe('subgraph errors', () => {
  it('when a resolver fails unexpectedly, then the answer is a generic INTERNAL_SERVER_ERROR and the cause is logged', async () => {
    const { errors, lines } = await run('bug');
    expect(errors).toEqual([
      { message: 'Internal server error', path: ['bug'], extensions: { code: 'INTERNAL_SERVER_ERROR' } },
    ]);
    const logged = lines.filter((line) => line.msg === 'request failed');
    expect(logged).toHaveLength(1);
    expect(logged[0]?.level).toBe(50);
    expect(logged[0]?.err?.message).toContain("reading 'secret'");
  });

  it('when the database cannot be reached, then the answer is SERVICE_UNAVAILABLE without driver text and a warning names the cause', async () => {
    const { errors, lines } = await run('down');
    expect(errors.map((e) => e.extensions?.['code'])).toEqual(['SERVICE_UNAVAILABLE']);
    expect(JSON.stringify(errors)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|Mongo/);
    const logged = lines.filter((line) => line.msg === 'dependency unavailable');
    expect(logged).toHaveLength(1);
    expect(logged[0]?.err?.type).toBe('MongoServerSelectionError');
  });

  it('when a unique index refuses a write nobody caught, then the answer is CONFLICT and nothing is logged as a fault', async () => {
    const { errors, lines } = await run('duplicate');
    expect(errors.map((e) => e.extensions?.['code'])).toEqual(['CONFLICT']);
    expect(JSON.stringify(errors)).not.toMatch(/duplicate key|email_unique/);
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
  });

  it('when the domain answers a client error, then it passes through and nothing is logged', async () => {
    const { errors, lines } = await run('missing');
    expect(errors.map((e) => e.extensions?.['code'])).toEqual(['NOT_FOUND']);
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
  });
});
