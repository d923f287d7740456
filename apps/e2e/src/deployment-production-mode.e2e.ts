/**
 * The shared stack runs its processes as production does (NODE_ENV=production with generated secrets; jest's
 * globalSetup), so every stack test sees what a deployment serves: no introspection and no IDE at the gateway, no
 * per-request MongoDB command counts from a subgraph, and a subgraph that refuses a caller without SUBGRAPH_SECRET. The
 * development-only surfaces have tests of their own on development-mode processes (graphql-ide, graphql-schema,
 * resources-federation).
 */
import { ALL_SCOPES, signAccessToken } from '@platform/auth';
import { errorCodes, http, stackSubgraphSecret, testStack } from '@platform/testing';

const stack = testStack();
const token = signAccessToken(
  { sub: 'production-mode', uid: null, role: 'admin', scopes: [...ALL_SCOPES], kind: 'user' },
  stack.jwtSecret,
  600,
);

describe('the shared stack runs in production mode', () => {
  it('when the shared gateway is asked for its schema or opened in a browser, then introspection is refused and no IDE is served', async () => {
    const introspection = await http.graphql(
      `${stack.gatewayUrl}/graphql`,
      '{ __schema { queryType { name } } }',
      {},
      { token },
    );
    expect(introspection.status).toBe(400);
    expect(errorCodes(introspection.body)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    const page = await http.get(`${stack.gatewayUrl}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type') ?? '').not.toContain('text/html');
    expect(
      (await http.get(`${stack.gatewayUrl}/graphiql/`, { headers: { accept: 'text/html' } })).status,
    ).toBe(404);
  });

  it('when a shared subgraph answers, then it reports no MongoDB command counts and refuses a caller without the secret', async () => {
    const query = '{ items(first: 1) { totalCount } }';
    const answered = await http.graphql(
      `${stack.urls['items']}/graphql`,
      query,
      {},
      {
        token,
        headers: { 'x-subgraph-secret': stackSubgraphSecret(stack) },
      },
    );
    expect(answered.body.errors).toBeUndefined();
    expect(answered.body.extensions?.mongoCommands).toBeUndefined();
    expect((await http.graphql(`${stack.urls['items']}/graphql`, query, {}, { token })).status).toBe(401);
  });
});
