/**
 * Login, tokens and refresh rotation over the real stack: the token response and claims, identical failures for
 * unknown users, wrong passwords and inactive accounts, every invalid-token case, scope narrowing, refresh reuse
 * revoking the family, logout, password reset, and no secret in any log line.
 */
import jwt from 'jsonwebtoken';
import { http } from '@platform/testing';
import {
  ADMIN,
  adminToken,
  decodeJwt,
  graphqlUrl,
  issuedRefreshTokens,
  logLinesContaining,
  login,
  register,
  rest,
  stack,
  type Account,
} from './test/identity-support';

const secrets: string[] = [];
const track = (account: Account) => {
  secrets.push(account.password);
  return account;
};

describe('identity: login', () => {
  it('when a member logs in with a form body, then 200 returns a bearer HS256 JWT with sub, uid, role, scopes and exp', async () => {
    const user = track(await register('tok'));
    const before = Math.floor(Date.now() / 1000);
    const response = await http.post(rest('/token'), { form: { username: user.username, password: user.password } });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 1800,
      refresh_token: expect.any(String),
      scope: 'users:read users:write items:read items:write posts:read posts:write',
    });
    const { header, claims } = decodeJwt(response.body.access_token);
    expect(header['alg']).toBe('HS256');
    expect(claims).toMatchObject({ sub: user.username, uid: user.id, role: 'member', kind: 'user' });
    expect(claims['scopes']).toEqual(response.body.scope.split(' '));
    expect(claims['exp']).toBeGreaterThanOrEqual(before + 1800);
    expect(claims['exp']).toBeLessThanOrEqual(before + 1800 + 5);
    expect(JSON.stringify(claims)).not.toContain(user.password);
    expect(() => jwt.verify(response.body.access_token, stack.jwtSecret, { algorithms: ['HS256'] })).not.toThrow();
  });

  it('when /auth/token gets JSON, then it logs in the same way', async () => {
    const user = track(await register('tokj'));
    const response = await http.post(rest('/auth/token'), { json: { username: user.username, password: user.password } });
    expect(response.status).toBe(200);
    expect(decodeJwt(response.body.access_token).claims['sub']).toBe(user.username);
  });

  it('when the bootstrap admin logs in, then its token carries the admin role', async () => {
    const tokens = await login(ADMIN.username, ADMIN.password);
    expect(decodeJwt(tokens.access_token).claims['role']).toBe('admin');
  });

  it('when the password is wrong or the user unknown, then both answer 401 with the same body', async () => {
    const user = track(await register('bad'));
    const wrong = await http.post(rest('/token'), { form: { username: user.username, password: 'wrong-password-1' } });
    const unknown = await http.post(rest('/token'), { form: { username: `nobody${user.username}`, password: 'wrong-password-1' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ detail: 'Incorrect username or password' });
    expect(unknown.text).toBe(wrong.text);
  });

  it('when the user is unknown, then the answer takes about as long as for a wrong password (dummy hash)', async () => {
    const user = track(await register('tim'));
    const time = async (username: string) => {
      const started = performance.now();
      await http.post(rest('/token'), { form: { username, password: 'wrong-password-1' } });
      return performance.now() - started;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      known.push(await time(user.username));
      unknown.push(await time(`ghost${user.username}`));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // An unknown user without the dummy verification would answer in a few milliseconds.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.4);
  });

  it.each([
    ['username', { password: 'whatever-1' }],
    ['password', { username: 'someone' }],
  ])('when %s is missing, then 422 names it', async (field, form) => {
    const response = await http.post(rest('/token'), { form });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain(field);
  });

  it('when the password is an operator object, then 422 and no login', async () => {
    const response = await http.post(rest('/auth/token'), { json: { username: ADMIN.username, password: { $ne: '' } } });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain('password');
    expect(response.text).not.toContain('access_token');
  });

  it('when a token asks for fewer scopes, then it carries only those and a write is 403 naming the scope', async () => {
    const user = track(await register('nar'));
    const tokens = await login(user.username, user.password, 'users:read');
    expect(tokens.scope).toBe('users:read');
    expect((await http.get(rest('/users/me'), { token: tokens.access_token })).status).toBe(200);
    const write = await http.patch(rest(`/users/${user.id}`), { token: tokens.access_token, json: { full_name: 'X' } });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({ detail: 'Not enough permissions. Required: users:write' });
    const other = await login(user.username, user.password, 'items:read');
    const read = await http.get(rest('/users/me'), { token: other.access_token });
    expect(read.status).toBe(403);
    expect(read.body).toEqual({ detail: 'Not enough permissions. Required: users:read' });
  });

  it('when an unknown scope is requested, then 422 names scope', async () => {
    const user = track(await register('unk'));
    const response = await http.post(rest('/token'), { form: { username: user.username, password: user.password, scope: 'users:read root' } });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain('scope');
  });

  it('when a viewer asks for a write scope, then 422 names scope; its default token cannot write', async () => {
    const { MongoClient } = await import('mongodb');
    const user = track(await register('vie'));
    const client = await MongoClient.connect(stack.mongoUrl);
    try {
      // No API assigns roles (operators do); the test makes the account a viewer directly.
      await client.db('api_users').collection('users').updateOne({ _id: user.id as never }, { $set: { role: 'viewer' } });
    } finally {
      await client.close();
    }
    const wider = await http.post(rest('/token'), { form: { username: user.username, password: user.password, scope: 'users:write' } });
    expect(wider.status).toBe(422);
    expect(wider.body.detail).toContain('scope');
    const tokens = await login(user.username, user.password);
    expect(tokens.scope).toBe('users:read items:read posts:read');
    const write = await http.patch(rest(`/users/${user.id}`), { token: tokens.access_token, json: { full_name: 'V' } });
    expect(write.status).toBe(403);
    expect(write.body.detail).toBe('Not enough permissions. Required: users:write');
  });
});

describe('identity: tokens over GraphQL', () => {
  it('when login, refreshToken and logout are called on the gateway, then they follow the same rules as REST', async () => {
    const user = track(await register('gql'));
    const loginDoc = 'mutation ($u: String!, $p: String!, $s: String) { login(username: $u, password: $p, scope: $s) { accessToken tokenType expiresIn refreshToken scopes } }';
    const failed = await http.graphql(graphqlUrl, loginDoc, { u: user.username, p: 'wrong-password-1' });
    expect(failed.body.errors[0]).toMatchObject({ message: 'Incorrect username or password', extensions: { code: 'LOGIN_FAILED' } });
    const ok = await http.graphql(graphqlUrl, loginDoc, { u: user.username, p: user.password, s: 'users:read' });
    const pair = ok.body.data.login;
    expect(pair).toMatchObject({ tokenType: 'bearer', expiresIn: 1800, scopes: ['users:read'] });
    issuedRefreshTokens.push(pair.refreshToken);
    const me = await http.graphql(graphqlUrl, '{ me { id username } }', {}, { token: pair.accessToken });
    expect(me.body.data.me).toEqual({ id: String(user.id), username: user.username });
    const rotated = await http.graphql(graphqlUrl, 'mutation ($t: String!) { refreshToken(refreshToken: $t) { refreshToken scopes } }', { t: pair.refreshToken });
    expect(rotated.body.data.refreshToken.scopes).toEqual(['users:read']);
    issuedRefreshTokens.push(rotated.body.data.refreshToken.refreshToken);
    const out = await http.graphql(graphqlUrl, 'mutation ($t: String!) { logout(refreshToken: $t) }', { t: rotated.body.data.refreshToken.refreshToken });
    expect(out.body.data).toEqual({ logout: true });
    const after = await http.graphql(graphqlUrl, 'mutation ($t: String!) { refreshToken(refreshToken: $t) { accessToken } }', { t: rotated.body.data.refreshToken.refreshToken });
    expect(after.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('when an internal field is queried through the gateway, then it does not exist there', async () => {
    const response = await http.graphql(graphqlUrl, 'query { _accountStatus(id: "1") { role } }');
    expect(response.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const purge = await http.graphql(graphqlUrl, 'mutation { _purgeUser(userId: "1") }');
    expect(purge.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('identity: invalid tokens', () => {
  const claims = { sub: 'admin', uid: 1, role: 'admin', scopes: ['users:read'], kind: 'user' };

  it('when no token is sent, then 401 Not authenticated with WWW-Authenticate', async () => {
    const response = await http.get(rest('/users/me'));
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Not authenticated' });
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it.each([
    ['malformed', () => 'not-a-jwt'],
    ['a wrong signature', () => jwt.sign(claims, 'another-secret-that-is-long-enough-1234', { algorithm: 'HS256', expiresIn: 60 })],
    ['HS512', () => jwt.sign(claims, stack.jwtSecret, { algorithm: 'HS512', expiresIn: 60 })],
    ['alg none', () => `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, exp: Math.floor(Date.now() / 1000) + 60 })).toString('base64url')}.`],
    ['expired', () => jwt.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 10 }, stack.jwtSecret, { algorithm: 'HS256' })],
    ['no sub', () => jwt.sign({ uid: 1, role: 'admin', scopes: ['users:read'], kind: 'user' }, stack.jwtSecret, { algorithm: 'HS256', expiresIn: 60 })],
  ])('when the token is %s, then 401 Invalid token on REST and UNAUTHENTICATED on GraphQL', async (_case, make) => {
    const token = make();
    const response = await http.get(rest('/users/me'), { token });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Invalid token' });
    const graphql = await http.graphql(graphqlUrl, '{ me { id } }', {}, { token });
    expect(graphql.body.errors[0]).toMatchObject({ message: 'Invalid token', extensions: { code: 'UNAUTHENTICATED' } });
  });

  it('when GraphQL is called without a token, then me answers UNAUTHENTICATED Not authenticated', async () => {
    const response = await http.graphql(graphqlUrl, '{ me { id } }');
    expect(response.body.errors[0]).toMatchObject({ message: 'Not authenticated', extensions: { code: 'UNAUTHENTICATED' } });
  });
});

describe('identity: refresh tokens', () => {
  it('when a refresh token is rotated, then the new pair works, rotates again, and the old token is refused', async () => {
    const user = track(await register('ref'));
    const first = await login(user.username, user.password);
    const rotated = await http.post(rest('/auth/refresh'), { json: { refresh_token: first.refresh_token } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(first.refresh_token);
    expect(decodeJwt(rotated.body.access_token).claims['sub']).toBe(user.username);
    expect((await http.get(rest('/users/me'), { token: rotated.body.access_token })).status).toBe(200);
    const again = await http.post(rest('/auth/refresh'), { form: { refresh_token: rotated.body.refresh_token } });
    expect(again.status).toBe(200);
    const old = await http.post(rest('/auth/refresh'), { json: { refresh_token: first.refresh_token } });
    expect(old.status).toBe(401);
  });

  it('when a rotated refresh token is reused, then 401 and the whole family is revoked', async () => {
    const user = track(await register('reu'));
    const first = await login(user.username, user.password);
    const second = await http.post(rest('/auth/refresh'), { json: { refresh_token: first.refresh_token } });
    expect(second.status).toBe(200);
    const reuse = await http.post(rest('/auth/refresh'), { json: { refresh_token: first.refresh_token } });
    expect(reuse.status).toBe(401);
    expect(reuse.body).toEqual({ detail: 'Invalid refresh token' });
    const legit = await http.post(rest('/auth/refresh'), { json: { refresh_token: second.body.refresh_token } });
    expect(legit.status).toBe(401);
    // Another login (another family) is unaffected.
    const other = await login(user.username, user.password);
    expect((await http.post(rest('/auth/refresh'), { json: { refresh_token: other.refresh_token } })).status).toBe(200);
  });

  it('when a session logs out, then 204 and its refresh token no longer works', async () => {
    const user = track(await register('out'));
    const tokens = await login(user.username, user.password);
    const out = await http.post(rest('/auth/logout'), { form: { refresh_token: tokens.refresh_token } });
    expect(out.status).toBe(204);
    expect(out.text).toBe('');
    expect((await http.post(rest('/auth/refresh'), { json: { refresh_token: tokens.refresh_token } })).status).toBe(401);
    expect((await http.post(rest('/auth/logout'), { json: { refresh_token: tokens.refresh_token } })).status).toBe(204);
  });

  it('when the refresh token is unknown or missing, then 401 or 422', async () => {
    expect((await http.post(rest('/auth/refresh'), { json: { refresh_token: 'rt_forged' } })).status).toBe(401);
    const missing = await http.post(rest('/auth/refresh'), { json: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContain('refresh_token');
    expect((await http.post(rest('/auth/refresh'), { json: { refresh_token: { $ne: '' } } })).status).toBe(422);
  });
});

describe('identity: account state and passwords', () => {
  it('when an admin deactivates a user, then it cannot log in or refresh, reads 404 unless include_inactive, and activation restores it', async () => {
    const user = track(await register('ina'));
    const tokens = await login(user.username, user.password);
    const admin = await adminToken();
    const deactivated = await http.post(rest(`/users/${user.id}/deactivate`), { token: admin });
    expect(deactivated.status).toBe(200);
    expect(deactivated.body.is_active).toBe(false);

    const refused = await http.post(rest('/token'), { form: { username: user.username, password: user.password } });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ detail: 'Incorrect username or password' });
    expect((await http.post(rest('/auth/refresh'), { json: { refresh_token: tokens.refresh_token } })).status).toBe(401);
    expect((await http.get(rest(`/users/${user.id}`), { token: admin })).status).toBe(404);
    const included = await http.get(rest(`/users/${user.id}?include_inactive=true`), { token: admin });
    expect(included.status).toBe(200);
    expect(included.body.is_active).toBe(false);

    // A deactivated user's own token is dead (issue 13): it cannot re-activate the account, nor do anything else.
    const selfActivate = await http.post(rest(`/users/${user.id}/activate`), { token: tokens.access_token });
    expect(selfActivate.status).toBe(401);
    expect(selfActivate.body).toEqual({ detail: 'Invalid token' });
    const activated = await http.post(rest(`/users/${user.id}/activate`), { token: admin });
    expect(activated.status).toBe(200);
    expect(activated.body.is_active).toBe(true);
    expect((await http.post(rest('/token'), { form: { username: user.username, password: user.password } })).status).toBe(200);
  });

  it('when a member tries to deactivate itself or another, then 403', async () => {
    const user = track(await register('dea'));
    const other = track(await register('deb'));
    const { access_token } = await login(user.username, user.password);
    expect((await http.post(rest(`/users/${user.id}/deactivate`), { token: access_token })).status).toBe(403);
    expect((await http.post(rest(`/users/${other.id}/deactivate`), { token: access_token })).status).toBe(403);
  });

  it('when users reset their own password, then the current one is required, old sessions end and the new password works', async () => {
    const user = track(await register('rpw'));
    const tokens = await login(user.username, user.password);
    const newPassword = `pw-new-${user.username}-7`;
    secrets.push(newPassword);
    const path = rest(`/users/${user.id}/reset-password`);
    const missing = await http.post(path, { token: tokens.access_token, json: { new_password: newPassword } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContain('current_password');
    const wrong = await http.post(path, { token: tokens.access_token, json: { current_password: 'nope-1234', new_password: newPassword } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail).toContain('current_password');
    const weak = await http.post(path, { token: tokens.access_token, json: { current_password: user.password, new_password: 'short' } });
    expect(weak.status).toBe(422);
    expect(weak.body.detail).toContain('new_password');

    const ok = await http.post(path, { token: tokens.access_token, json: { current_password: user.password, new_password: newPassword } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: user.id, username: user.username });
    expect(ok.text).not.toContain(newPassword);
    expect((await http.post(rest('/auth/refresh'), { json: { refresh_token: tokens.refresh_token } })).status).toBe(401);
    expect((await http.post(rest('/token'), { form: { username: user.username, password: user.password } })).status).toBe(401);
    expect((await http.post(rest('/token'), { form: { username: user.username, password: newPassword } })).status).toBe(200);
  });

  it('when a member resets another user\'s password, then 403; an admin may without the current password', async () => {
    const user = track(await register('rpa'));
    const victim = track(await register('rpb'));
    const { access_token } = await login(user.username, user.password);
    const attempt = await http.post(rest(`/users/${victim.id}/reset-password`), {
      token: access_token,
      json: { current_password: victim.password, new_password: 'taken-over-99' },
    });
    expect(attempt.status).toBe(403);
    const byAdmin = await http.post(rest(`/users/${victim.id}/reset-password`), {
      token: await adminToken(),
      json: { new_password: `pw-admin-set-${victim.username}-1` },
    });
    secrets.push(`pw-admin-set-${victim.username}-1`);
    expect(byAdmin.status).toBe(200);
    expect((await http.post(rest('/token'), { form: { username: victim.username, password: `pw-admin-set-${victim.username}-1` } })).status).toBe(200);
  });

  it('when the logs are scanned, then no password, hash or refresh token of these tests appears', async () => {
    expect(secrets.length).toBeGreaterThan(10);
    expect(await logLinesContaining([...secrets, ...issuedRefreshTokens, ADMIN.password, '$argon2id$'])).toEqual([]);
  });
});
