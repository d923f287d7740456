/** Shared steps of the resources e2e tests (items, posts, comments, likes): accounts, logins, REST and GraphQL calls. */
import { testStack } from '@platform/testing';
import { ADMIN, issueTokens, registerAccount } from './accounts';

export const stack = testStack();
export const rest = (path: string) => `${stack.restUrl}${path}`;
export const gatewayGraphql = `${stack.gatewayUrl}/graphql`;
export { unique } from './accounts';

export interface Member {
  id: number;
  username: string;
  token: string;
}

export const login = async (username: string, password: string, scope?: string): Promise<string> =>
  (await issueTokens(stack.restUrl, username, password, scope)).access_token;

/** A fresh member (registered over REST, logged in over REST). */
export async function member(prefix = 'res', scope?: string): Promise<Member> {
  const account = await registerAccount(stack.restUrl, prefix);
  return {
    id: account.id,
    username: account.username,
    token: await login(account.username, account.password, scope),
  };
}

export const adminToken = () => login(ADMIN.username, ADMIN.password);

/**
 * Two fresh members and the admin's token. One registration after the other: concurrent first registrations race
 * on the id counter's upsert (see report).
 */
export async function twoMembersAndAdmin(
  firstPrefix: string,
  secondPrefix: string,
): Promise<{ alice: Member; bob: Member; admin: string }> {
  const alice = await member(firstPrefix);
  const bob = await member(secondPrefix);
  return { alice, bob, admin: await adminToken() };
}
