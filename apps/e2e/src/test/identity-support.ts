/** Shared steps of the identity e2e tests: unique accounts, logins, token decoding and the log scan. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testStack } from '@platform/testing';
import { ADMIN, issueTokens, registerAccount, type Account, type Tokens } from './accounts';

export const stack = testStack();
export const rest = (path: string) => `${stack.restUrl}${path}`;
export const graphqlUrl = `${stack.gatewayUrl}/graphql`;

export { ADMIN, unique, type Account, type Tokens } from './accounts';

/** Registers a fresh member; every password is unique so that the log scan can look for it. */
export const register = (prefix = 'idt'): Promise<Account> => registerAccount(stack.restUrl, prefix);

/** Every refresh token the tests obtained through login(), for the log scan. */
export const issuedRefreshTokens: string[] = [];

export async function login(username: string, password: string, scope?: string): Promise<Tokens> {
  const tokens = await issueTokens(stack.restUrl, username, password, scope);
  issuedRefreshTokens.push(tokens.refresh_token);
  return tokens;
}

export const adminToken = async () => (await login(ADMIN.username, ADMIN.password)).access_token;

export function decodeJwt(token: string): {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
} {
  const [header, claims] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header ?? '', 'base64url').toString('utf8')) as Record<string, unknown>,
    claims: JSON.parse(Buffer.from(claims ?? '', 'base64url').toString('utf8')) as Record<string, unknown>,
  };
}

const LOG_FILES = ['users.log', 'auth.log', 'rest.log', 'gateway.log'];

/** Lines of the stack's process logs that contain any of the secrets (pino writes asynchronously: read after a pause). */
export async function logLinesContaining(secrets: readonly string[]): Promise<string[]> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const dir = stack.urls['logDir'];
  if (!dir) throw new Error('testStack().urls.logDir is missing');
  const present = new Set(readdirSync(dir));
  const hits: string[] = [];
  for (const file of LOG_FILES) {
    if (!present.has(file)) throw new Error(`log file ${file} is missing in ${dir}`);
    const content = readFileSync(join(dir, file), 'utf8');
    // An empty log would make the scan pass vacuously: every process logs one line per request it served.
    if (!content.includes('"msg":"request completed"'))
      throw new Error(`log file ${file} has no request lines`);
    for (const line of content.split('\n')) {
      if (secrets.some((secret) => line.includes(secret))) hits.push(`${file}: ${line.slice(0, 300)}`);
    }
  }
  return hits;
}
