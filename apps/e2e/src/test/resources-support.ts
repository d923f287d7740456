/** Shared steps of the resources e2e tests (items, posts, comments, likes): accounts, logins, REST and GraphQL calls. */
import { http, testStack } from '@platform/testing';

export const stack = testStack();
export const rest = (path: string) => `${stack.restUrl}${path}`;
export const gatewayGraphql = `${stack.gatewayUrl}/graphql`;
export const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

export interface Member {
  id: number;
  username: string;
  token: string;
}

export async function login(username: string, password: string, scope?: string): Promise<string> {
  const response = await http.post(rest('/token'), {
    form: { username, password, ...(scope ? { scope } : {}) },
  });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${response.text}`);
  return response.body.access_token as string;
}

/** A fresh member (registered over REST, logged in over REST). */
export async function member(prefix = 'res', scope?: string): Promise<Member> {
  const username = `${prefix}${unique()}`;
  const password = `pw-${unique()}-1`;
  const created = await http.post(rest('/users/'), {
    json: { username, email: `${username}@example.com`, password },
  });
  if (created.status !== 201) throw new Error(`registration failed: ${created.status} ${created.text}`);
  return { id: created.body.id as number, username, token: await login(username, password, scope) };
}

export const adminToken = () => login('admin', 'admin-password-1');
