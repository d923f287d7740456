/**
 * Who may read and write which account, over REST and GraphQL: scopes, ownership (no BOLA), admin rights,
 * refused mass assignment and operator objects, updates and the cascading delete, the users listing in every
 * style and version, and no secret in any log line.
 */
import { http } from '@platform/testing';
import { ADMIN, adminToken, graphqlUrl, issuedRefreshTokens, logLinesContaining, login, register, rest, type Account } from './test/identity-support';

const secrets: string[] = [];
const member = async (prefix: string) => {
  const account: Account = await register(prefix);
  secrets.push(account.password);
  const tokens = await login(account.username, account.password);
  return { ...account, token: tokens.access_token };
};

describe('identity: reads', () => {
  it('when a member reads /users/me, then it gets its own record with username and id', async () => {
    const alice = await member('me');
    const response = await http.get(rest('/users/me'), { token: alice.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: alice.id, username: alice.username, email: alice.email, full_name: null, is_active: true, role: 'member' });
  });

  it('when /users/{id} is read without a token, then 401; with a bad id, then 422; unknown, then 404', async () => {
    const alice = await member('rd');
    expect((await http.get(rest(`/users/${alice.id}`))).status).toBe(401);
    for (const bad of ['0', '-1', 'abc', '1.5']) {
      const response = await http.get(rest(`/users/${bad}`), { token: alice.token });
      expect(response.status).toBe(422);
      expect(response.body.detail).toContain('user_id');
    }
    const missing = await http.get(rest('/users/987654321'), { token: alice.token });
    expect(missing.status).toBe(404);
    const found = await http.get(rest(`/users/${alice.id}`), { token: alice.token });
    expect(found.status).toBe(200);
    expect(found.body.username).toBe(alice.username);
  });
});

describe('identity: writes and ownership', () => {
  it('when a member patches its own record, then only the given fields change', async () => {
    const alice = await member('pa');
    const email = `new${alice.username}@example.org`;
    const patched = await http.patch(rest(`/users/${alice.id}`), { token: alice.token, json: { full_name: 'Alice L' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: alice.id, email: alice.email, full_name: 'Alice L' });
    const second = await http.patch(rest(`/users/${alice.id}`), { token: alice.token, json: { email } });
    expect(second.body).toMatchObject({ email, full_name: 'Alice L' });
  });

  it('when a member puts its record, then every updatable field is replaced and email is required', async () => {
    const alice = await member('pu');
    await http.patch(rest(`/users/${alice.id}`), { token: alice.token, json: { full_name: 'Before' } });
    const noEmail = await http.put(rest(`/users/${alice.id}`), { token: alice.token, json: { full_name: 'After' } });
    expect(noEmail.status).toBe(422);
    expect(noEmail.body.detail).toContain('email');
    const replaced = await http.put(rest(`/users/${alice.id}`), { token: alice.token, json: { email: alice.email } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ email: alice.email, full_name: null });
  });

  it('when a member modifies or deletes another account, then 403 and the account is unchanged (no BOLA)', async () => {
    const alice = await member('bo');
    const bob = await member('bv');
    const attempts = [
      http.patch(rest(`/users/${bob.id}`), { token: alice.token, json: { full_name: 'pwned' } }),
      http.put(rest(`/users/${bob.id}`), { token: alice.token, json: { email: `x${bob.email}` } }),
      http.delete(rest(`/users/${bob.id}`), { token: alice.token }),
      http.post(rest(`/users/${bob.id}/activate`), { token: alice.token }),
    ];
    for (const response of await Promise.all(attempts)) expect(response.status).toBe(403);
    const after = await http.get(rest(`/users/${bob.id}`), { token: bob.token });
    expect(after.body).toMatchObject({ email: bob.email, full_name: null, is_active: true });
    expect((await http.post(rest('/token'), { form: { username: bob.username, password: bob.password } })).status).toBe(200);
  });

  it('when a member does the same over GraphQL, then FORBIDDEN and nothing changes', async () => {
    const alice = await member('gq');
    const bob = await member('gr');
    const response = await http.graphql(
      graphqlUrl,
      'mutation ($id: ID!) { updateUser(id: $id, input: { fullName: "pwned" }) { id fullName } }',
      { id: String(bob.id) },
      { token: alice.token },
    );
    expect(response.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const own = await http.graphql(
      graphqlUrl,
      'mutation ($id: ID!) { updateUser(id: $id, input: { fullName: "Alice G" }) { id fullName } }',
      { id: String(alice.id) },
      { token: alice.token },
    );
    expect(own.body.data.updateUser).toEqual({ id: String(alice.id), fullName: 'Alice G' });
    const deleted = await http.graphql(graphqlUrl, 'mutation ($id: ID!) { deleteUser(id: $id) }', { id: String(bob.id) }, { token: alice.token });
    expect(deleted.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const read = await http.graphql(graphqlUrl, 'query ($id: ID!) { user(id: $id) { fullName } }', { id: String(bob.id) }, { token: bob.token });
    expect(read.body.data.user).toEqual({ fullName: null });
  });

  it('when an admin updates another account, then it changes', async () => {
    const bob = await member('ad');
    const response = await http.patch(rest(`/users/${bob.id}`), { token: await adminToken(), json: { full_name: 'Set by admin' } });
    expect(response.status).toBe(200);
    expect(response.body.full_name).toBe('Set by admin');
  });

  it.each([
    ['role', 'admin'],
    ['is_active', false],
    ['id', 999],
    ['password', 'new-password-1'],
    ['username', 'renamed'],
  ])('when an update carries %s, then 422 names it and nothing changes (no mass assignment)', async (field, value) => {
    const alice = await member('ma');
    for (const method of ['patch', 'put'] as const) {
      const response = await http[method](rest(`/users/${alice.id}`), { token: alice.token, json: { email: alice.email, [field]: value } });
      expect(response.status).toBe(422);
      expect(response.body.detail).toContain(field);
    }
    const after = await http.get(rest('/users/me'), { token: alice.token });
    expect(after.body).toEqual({ id: alice.id, username: alice.username, email: alice.email, full_name: null, is_active: true, role: 'member' });
    expect((await http.post(rest('/token'), { form: { username: alice.username, password: alice.password } })).status).toBe(200);
  });

  it('when an update carries an operator object, then 422 and nothing changes', async () => {
    const alice = await member('op');
    const response = await http.patch(rest(`/users/${alice.id}`), { token: alice.token, json: { email: { $ne: '' } } });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain('email');
    const filter = await http.get(rest('/users/?username[$ne]=x'), { token: alice.token });
    expect(filter.status).toBeGreaterThanOrEqual(400);
    expect(filter.status).toBeLessThan(500);
  });

  it('when a member takes another user\'s e-mail, then 409', async () => {
    const alice = await member('em');
    const bob = await member('en');
    const response = await http.patch(rest(`/users/${alice.id}`), { token: alice.token, json: { email: bob.email } });
    expect(response.status).toBe(409);
    expect(response.body.detail).toContain('email');
  });
});

describe('identity: deletion', () => {
  it('when a member deletes its own account, then 204, it is gone, and it can no longer log in', async () => {
    const alice = await member('del');
    const refresh = (await login(alice.username, alice.password)).refresh_token;
    const response = await http.delete(rest(`/users/${alice.id}`), { token: alice.token });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    const admin = await adminToken();
    expect((await http.get(rest(`/users/${alice.id}?include_inactive=true`), { token: admin })).status).toBe(404);
    const loginAfter = await http.post(rest('/token'), { form: { username: alice.username, password: alice.password } });
    expect(loginAfter.status).toBe(401);
    expect((await http.post(rest('/auth/refresh'), { json: { refresh_token: refresh } })).status).toBe(401);
    // The username is free again; the id is not reused.
    const again = await register(alice.username.slice(0, 3));
    expect(again.id).toBeGreaterThan(alice.id);
  });

  it('when an admin deletes an account, then 204; deleting it again is 404', async () => {
    const bob = await member('dad');
    const admin = await adminToken();
    expect((await http.delete(rest(`/users/${bob.id}`), { token: admin })).status).toBe(204);
    expect((await http.delete(rest(`/users/${bob.id}`), { token: admin })).status).toBe(404);
  });
});

describe('identity: listing', () => {
  it('when users are listed without users:read, then 401 or 403', async () => {
    expect((await http.get(rest('/users/'))).status).toBe(401);
    const alice = await register('ls');
    secrets.push(alice.password);
    const narrow = await login(alice.username, alice.password, 'items:read');
    const response = await http.get(rest('/users/'), { token: narrow.access_token });
    expect(response.status).toBe(403);
    expect(response.body.detail).toBe('Not enough permissions. Required: users:read');
  });

  it('when users are listed with skip, limit, role and sort, then a JSON array of Users in that order', async () => {
    const alice = await member('lst');
    const response = await http.get(rest('/users/?role=admin&limit=5&skip=0&sort=-id'), { token: alice.token });
    expect(response.status).toBe(200);
    expect(Array.isArray(response.body)).toBe(true);
    expect(response.body.length).toBeGreaterThanOrEqual(1);
    for (const user of response.body) expect(user.role).toBe('admin');
    const ids = response.body.map((u: { id: number }) => u.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
    expect(response.body.map((u: { username: string }) => u.username)).toContain(ADMIN.username);
    const members = await http.get(rest(`/users/?username=${alice.username}`), { token: alice.token });
    expect(members.body).toEqual([{ id: alice.id, username: alice.username, email: alice.email, full_name: null, is_active: true, role: 'member' }]);
    const tooMany = await http.get(rest('/users/?limit=1001'), { token: alice.token });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail).toContain('limit');
    expect((await http.get(rest('/users/?skip=-1'), { token: alice.token })).status).toBe(422);
  });

  it('when users are listed with page and size, then envelope A with total', async () => {
    const alice = await member('lpg');
    const response = await http.get(rest('/users/?page=1&size=2&sort=id'), { token: alice.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ items: expect.any(Array), total: expect.any(Number), page: 1, size: 2 });
    expect(response.body.items).toHaveLength(2);
    expect(response.body.total).toBeGreaterThanOrEqual(2);
    expect(response.body.items[0]).toHaveProperty('email');
  });

  it('when users are listed under /v1 and /v2, then items are {id, name} and {id, name, email}', async () => {
    const alice = await member('lv');
    const query = `?username=${alice.username}`;
    const v1 = await http.get(rest(`/v1/users/${query}`), { token: alice.token });
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual([{ id: alice.id, name: alice.username }]);
    const v2 = await http.get(rest(`/v2/users/${query}`), { token: alice.token });
    expect(v2.body).toEqual([{ id: alice.id, name: alice.username, email: alice.email }]);
    const v2page = await http.get(rest(`/v2/users/${query}&page=1&size=5`), { token: alice.token });
    expect(v2page.body.items).toEqual([{ id: alice.id, name: alice.username, email: alice.email }]);
  });

  it('when users are listed over GraphQL, then a connection with totalCount and a cursor', async () => {
    const alice = await member('lgq');
    const response = await http.graphql(
      graphqlUrl,
      'query { users(first: 1, sort: ["id"]) { nodes { id username } pageInfo { endCursor hasNextPage } totalCount } }',
      {},
      { token: alice.token },
    );
    const users = response.body.data.users;
    expect(users.nodes).toHaveLength(1);
    expect(users.totalCount).toBeGreaterThanOrEqual(2);
    expect(users.pageInfo.hasNextPage).toBe(true);
    const next = await http.graphql(
      graphqlUrl,
      'query ($after: String) { users(first: 1, after: $after, sort: ["id"]) { nodes { id } } }',
      { after: users.pageInfo.endCursor },
      { token: alice.token },
    );
    expect(Number(next.body.data.users.nodes[0].id)).toBeGreaterThan(Number(users.nodes[0].id));
  });
});

describe('identity: secrets', () => {
  it('when the logs are scanned, then no password, hash or refresh token of these tests appears', async () => {
    expect(secrets.length).toBeGreaterThan(10);
    expect(await logLinesContaining([...secrets, ...issuedRefreshTokens, ADMIN.password, '$argon2id$'])).toEqual([]);
  });
});
