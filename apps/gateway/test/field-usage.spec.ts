/** Field usage counting through a real ApolloServer (executeOperation, no HTTP): per operation, per field, bounded. */
import { ApolloServer } from '@apollo/server';
import { FieldUsage, fieldUsagePlugin, OTHER_OPERATIONS } from '../src/field-usage';

const typeDefs = `
  type Query { user: User, users: [User!]! }
  type User { id: ID!, name: String!, fullName: String @deprecated(reason: "use name") }
`;
const user = { id: '1', name: 'ann', fullName: 'Ann' };

async function serverWith(usage: FieldUsage, ignore?: (context: { dryRun?: boolean }) => boolean) {
  const server = new ApolloServer<{ dryRun?: boolean }>({
    typeDefs,
    resolvers: { Query: { user: () => user, users: () => [user] } },
    plugins: [fieldUsagePlugin(usage, ignore)],
  });
  await server.start();
  return server;
}

describe('field usage', () => {
  it('when operations run, then each operation name and each field it selects is counted, deprecated ones apart', async () => {
    const usage = new FieldUsage();
    const server = await serverWith(usage);
    for (let i = 0; i < 3; i += 1) await server.executeOperation({ query: 'query Profile { user { id name } }' });
    await server.executeOperation({ query: 'query Legacy { users { id fullName } }' });
    await server.executeOperation({ query: '{ user { name } }' });
    // Refused in validation: no operation resolved, nothing counted.
    await server.executeOperation({ query: 'query Broken { user { nope } }' });
    expect(usage.snapshot()).toEqual({
      operations: { Profile: 3, Legacy: 1, '(anonymous)': 1 },
      fields: { 'Query.user': 4, 'User.id': 4, 'User.name': 4, 'Query.users': 1, 'User.fullName': 1 },
      deprecatedFields: { 'User.fullName': 1 },
    });
    await server.stop();
  });

  it('when more operation names arrive than the bound, then the surplus is counted as (other)', async () => {
    const usage = new FieldUsage(2);
    const server = await serverWith(usage);
    for (const name of ['A', 'B', 'C', 'D', 'A']) await server.executeOperation({ query: `query ${name} { user { id } }` });
    expect(usage.snapshot().operations).toEqual({ A: 2, B: 1, [OTHER_OPERATIONS]: 2 });
    await server.stop();
  });

  it('when an operation is one the ignore predicate names (a dry run), then it is not counted', async () => {
    const usage = new FieldUsage();
    const server = await serverWith(usage, (context) => context.dryRun === true);
    await server.executeOperation({ query: 'query Warm { user { id } }' }, { contextValue: { dryRun: true } });
    expect(usage.snapshot().operations).toEqual({});
    await server.stop();
  });
});
