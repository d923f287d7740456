/**
 * The schema internal teams rely on, over the running gateway: closed values are enums (Role), timestamps the
 * DateTime scalar (RFC 3339 strings, as REST shows them), and what the gateway serves is the committed schema/api.graphql.
 * Introspection and the IDE's schema are development surfaces: a gateway of its own in development mode over the
 * shared (production-mode) subgraphs answers them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { DEVELOPMENT_MODE, http, stackSubgraphUrls, suiteApps } from '@platform/testing';
import { ADMIN, loginToken, stack } from './test/interface-support';

describe('GraphQL schema quality (development gateway)', () => {
  const apps = suiteApps('graphql-schema-');
  let base: string;
  let gateway: string;

  beforeAll(async () => {
    base = (await apps.start('gateway', { ...DEVELOPMENT_MODE, ...stackSubgraphUrls() })).url;
    gateway = `${base}/graphql`;
  }, 60_000);

  it('when a user is read, then role is a Role enum value and createdAt a DateTime in RFC 3339 UTC', async () => {
    const token = await loginToken(stack.restUrl, ADMIN.username, ADMIN.password);
    const response = await http.graphql(
      gateway,
      `query Shape {
        me { role createdAt }
        role: __type(name: "Role") { kind enumValues { name description } }
        user: __type(name: "User") { fields { name type { name kind ofType { name kind } } } }
      }`,
      {},
      { token },
    );
    expect(response.body.errors).toBeUndefined();
    const { me, role, user } = response.body.data;
    expect(me.role).toBe('admin');
    expect(me.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(role.kind).toBe('ENUM');
    expect(role.enumValues.map((v: { name: string }) => v.name)).toEqual(['admin', 'member', 'viewer']);
    const typeOf = (name: string) => user.fields.find((f: { name: string }) => f.name === name).type.ofType;
    expect(typeOf('role')).toEqual({ name: 'Role', kind: 'ENUM' });
    expect(typeOf('createdAt')).toEqual({ name: 'DateTime', kind: 'SCALAR' });
  });

  it('when the IDE asks for the schema, then the gateway serves the committed schema/api.graphql', async () => {
    const served = await http.get(`${base}/graphiql/schema.graphql`);
    expect(served.status).toBe(200);
    const committed = readFileSync(join(stack.rootDir, 'schema', 'api.graphql'), 'utf8');
    const canonical = (sdl: string) => printSchema(lexicographicSortSchema(buildSchema(sdl)));
    expect(canonical(served.text)).toBe(canonical(committed));
  });
});
