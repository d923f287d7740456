/** The walking skeleton over real processes: REST -> gateway -> users subgraph -> FerretDB, read back through GraphQL. */
import { unique, http, testStack } from '@platform/testing';
import { adminToken } from './test/identity-support';

const stack = testStack();

describe('walking skeleton', () => {
  it('when a user registers over REST, then the gateway returns the same user and no password anywhere', async () => {
    const name = `skel${unique()}`;
    const created = await http.post(`${stack.restUrl}/users/`, {
      json: { username: name, email: `${name}@example.com`, password: 'sekret-pass-1' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      username: name,
      email: `${name}@example.com`,
      full_name: null,
      is_active: true,
      role: 'member',
    });
    expect(created.text).not.toContain('sekret-pass-1');
    expect(created.text).not.toMatch(/argon2|password/i);
    expect(created.headers.get('x-request-id')).toBeTruthy();

    const read = await http.graphql(
      `${stack.gatewayUrl}/graphql`,
      'query ($id: ID!) { user(id: $id) { id username email isActive } }',
      { id: String(created.body.id) },
      { token: await adminToken() },
    );
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      data: { user: { id: String(created.body.id), username: name, email: `${name}@example.com`, isActive: true } },
    });
  });

  it('when the docs are requested, then /docs is HTML and /openapi.json lists paths and component schemas', async () => {
    const docs = await http.get(`${stack.restUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('text/html');
    const openapi = await http.get(`${stack.restUrl}/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(openapi.body.paths['/users/'].post.operationId).toBe('createUser');
    expect(openapi.body.components.schemas.UserCreate).toBeDefined();
  });

  it.each(['rest', 'gateway', 'users', 'items', 'auth', 'posts'])('when %s is probed, then /healthz and /readyz answer 200', async (name) => {
    const base = stack.urls[name]!;
    expect((await http.get(`${base}/healthz`)).status).toBe(200);
    expect((await http.get(`${base}/readyz`)).status).toBe(200);
  });
});
