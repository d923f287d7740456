/**
 * `DateTime` inputs of a subgraph (its server as startSubgraph builds it, its formatError): a malformed instant, as a
 * literal or a variable, is BAD_USER_INPUT (400) saying what the input must be; a real instant reaches the resolver.
 */
import { createSubgraphServer } from './subgraph-server';

const typeDefs = `
scalar DateTime
input EventFilter { occurredAfter: DateTime }
type Query { events(filter: EventFilter): String }
`;
const resolvers = {
  Query: {
    events: (_: unknown, args: { filter: { occurredAfter: Date } }) => args.filter.occurredAfter.toISOString(),
  },
};

const server = createSubgraphServer(typeDefs, resolvers as never, { production: true });
beforeAll(() => server.start());
afterAll(() => server.stop());

async function run(query: string, variables: Record<string, unknown> = {}) {
  const response = await server.executeOperation({ query, variables });
  const body = response.body.kind === 'single' ? response.body.singleResult : undefined;
  return { status: response.http.status ?? 200, data: body?.data, errors: body?.errors ?? [] };
}

const MALFORMED: Array<[string, unknown]> = [
  ['"yesterday"', 'yesterday'],
  ['5', 5],
  ['"2026-13-01T00:00:00Z"', '2026-13-01T00:00:00Z'],
  ['"2026-02-30T00:00:00Z"', '2026-02-30T00:00:00Z'],
  ['"2026-01-01T24:00:00Z"', '2026-01-01T24:00:00Z'],
  ['{ a: 1 }', { a: 1 }],
];

describe('DateTime inputs', () => {
  it.each(MALFORMED)('when occurredAfter is the literal %s, then BAD_USER_INPUT (400) says what it must be', async (literal) => {
    const { status, errors } = await run(`{ events(filter: { occurredAfter: ${literal} }) }`);
    expect({ status, codes: errors.map((e) => e.extensions?.['code']) }).toEqual({ status: 400, codes: ['BAD_USER_INPUT'] });
    expect(errors[0]!.message).toContain('must be an RFC 3339 date-time');
  });

  it.each(MALFORMED)('when occurredAfter is the variable value %s, then BAD_USER_INPUT (400) names the variable and its path', async (_shown, value) => {
    const { status, errors } = await run('query ($filter: EventFilter) { events(filter: $filter) }', {
      filter: { occurredAfter: value },
    });
    expect({ status, codes: errors.map((e) => e.extensions?.['code']) }).toEqual({ status: 400, codes: ['BAD_USER_INPUT'] });
    expect(errors[0]!.message).toContain('"filter.occurredAfter"');
    expect(errors[0]!.message).toContain('must be an RFC 3339 date-time');
  });

  it('when occurredAfter is a real instant (any case, any offset), then the resolver gets that instant', async () => {
    const literal = await run('{ events(filter: { occurredAfter: "2024-02-29t23:30:00+01:00" }) }');
    expect(literal.data).toEqual({ events: '2024-02-29T22:30:00.000Z' });
    const variable = await run('query ($d: DateTime) { events(filter: { occurredAfter: $d }) }', {
      d: '2026-01-31T12:00:00.5Z',
    });
    expect(variable.data).toEqual({ events: '2026-01-31T12:00:00.500Z' });
  });
});
