/** Accounts for whole-stack tests, written once: unique names, registration and login over a facade's REST API. */
import { unique, http } from '@platform/testing';

export { unique };

/** The bootstrap admin jest's globalSetup configures. */
export const ADMIN = { username: 'admin', password: 'admin-password-1' };

export interface Account {
  id: number;
  username: string;
  email: string;
  password: string;
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

/** Registers a fresh member with a unique password (so log scans can look for it). */
export async function registerAccount(restUrl: string, prefix: string): Promise<Account> {
  const username = `${prefix}${unique()}`;
  const account = { username, email: `${username}@example.com`, password: `pw-${unique()}-9` };
  const response = await http.post(`${restUrl}/users/`, { json: account });
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${response.text}`);
  return { ...account, id: response.body.id as number };
}

/** Logs in with the form body of POST /token; `scope` narrows the token. */
export async function issueTokens(
  restUrl: string,
  username: string,
  password: string,
  scope?: string,
): Promise<Tokens> {
  const response = await http.post(`${restUrl}/token`, {
    form: { username, password, ...(scope ? { scope } : {}) },
  });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${response.text}`);
  return response.body as Tokens;
}
