/** Registration over REST and GraphQL: validation naming the field, uniqueness, no password anywhere, no operator injection. */
import { http } from '@platform/testing';
import { graphqlUrl, logLinesContaining, register, rest, unique } from './test/identity-support';

const passwords: string[] = [];
const body = (overrides: Record<string, unknown> = {}) => {
  const username = `reg${unique()}`;
  const password = `pw-${unique()}-1`;
  passwords.push(password);
  return { username, email: `${username}@example.com`, password, ...overrides };
};

describe('identity: registration', () => {
  it('when a valid user registers, then 201 returns the User with an integer id, is_active true and no password', async () => {
    const input = body();
    const response = await http.post(rest('/users/'), { json: input });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.any(Number),
      username: input.username,
      email: input.email,
      full_name: null,
      is_active: true,
      role: 'member',
    });
    expect(Number.isInteger(response.body.id)).toBe(true);
    expect(response.text).not.toContain(input.password);
    expect(response.text).not.toMatch(/password|argon2/i);
  });

  it('when several users register, then each gets a distinct, increasing integer id', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await http.post(rest('/users/'), { json: body() })).body.id as number);
    expect(new Set(ids).size).toBe(3);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it.each([
    ['username', { username: 'ab' }],
    ['username', { username: '' }],
    ['email', { email: 'not-an-email' }],
    ['email', { email: '' }],
    ['password', { password: 'short1' }],
    ['password', { password: 'no-digits-here' }],
    ['password', { password: '' }],
  ])('when the %s is invalid (%j), then 422 names that field', async (field, overrides) => {
    const response = await http.post(rest('/users/'), { json: body(overrides) });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain(field);
  });

  it.each(['username', 'email', 'password'])('when %s is missing, then 422 names it', async (field) => {
    const input: Record<string, unknown> = body();
    delete input[field];
    const response = await http.post(rest('/users/'), { json: input });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain(field);
  });

  it('when the username is taken, then 409 and no second account', async () => {
    const first = await register('dup');
    const response = await http.post(rest('/users/'), { json: body({ username: first.username }) });
    expect(response.status).toBe(409);
    expect(response.body.detail).toMatch(/username/);
  });

  it('when the e-mail is taken, then 409 naming the e-mail', async () => {
    const first = await register('dupm');
    const response = await http.post(rest('/users/'), { json: body({ email: first.email }) });
    expect(response.status).toBe(409);
    expect(response.body.detail).toMatch(/email/);
  });

  it.each([
    ['username', { username: { $ne: '' } }],
    ['email', { email: { $gt: '' } }],
    ['password', { password: { $ne: null } }],
  ])('when %s is an operator object, then 422 names it before anything reaches the database', async (field, overrides) => {
    const response = await http.post(rest('/users/'), { json: body(overrides) });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain(field);
  });

  it.each([['role', 'admin'], ['is_active', false], ['id', 1]])(
    'when registration carries %s, then 422 names it (no mass assignment)',
    async (field, value) => {
      const response = await http.post(rest('/users/'), { json: body({ [field]: value }) });
      expect(response.status).toBe(422);
      expect(response.body.detail).toContain(field);
    },
  );

  it('when a user registers over GraphQL, then the same rules apply and the password is not returned', async () => {
    const input = body();
    const mutation = 'mutation ($input: CreateUserInput!) { createUser(input: $input) { id username role isActive } }';
    const ok = await http.graphql(graphqlUrl, mutation, { input });
    expect(ok.body.data.createUser).toEqual({ id: expect.any(String), username: input.username, role: 'member', isActive: true });
    const bad = await http.graphql(graphqlUrl, mutation, { input: { ...body(), password: 'short' } });
    expect(bad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(bad.body.errors[0].message).toContain('password');
    const duplicate = await http.graphql(graphqlUrl, mutation, { input: { ...body(), username: input.username } });
    expect(duplicate.body.errors[0].extensions.code).toBe('CONFLICT');
  });

  it('when the logs are scanned, then no registration password and no argon2id hash appears', async () => {
    expect(passwords.length).toBeGreaterThan(5);
    expect(await logLinesContaining([...passwords, '$argon2id$'])).toEqual([]);
  });
});
