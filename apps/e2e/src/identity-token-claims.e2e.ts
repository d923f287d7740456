/**
 * Access tokens as typed JWT libraries (and the spec's model, FastAPI with PyJWT) read them: `iat` and `exp` whole
 * seconds. What orders a token against a password reset is the account's password version (`pwv`), not the clock: a
 * token issued before a reset is refused, one issued just after is accepted, within the same second too.
 */
import jwt from 'jsonwebtoken';
import { http, testStack } from '@platform/testing';
import { issueTokens, registerAccount } from './test/accounts';

const stack = testStack();
const rest = (path: string) => `${stack.restUrl}${path}`;
/** TOKEN_STATUS_CACHE_TTL_MS: how long the gateway may still answer from the account state it read before the reset. */
const STATUS_BOUND_MS = 2_000;

const claimsOf = (token: string) => jwt.decode(token) as { iat: number; exp: number; pwv?: number };

/** Polls GET /users/me with the token until it is refused (401) or the bound (plus a margin) has passed. */
async function refusedSoon(token: string): Promise<boolean> {
  const deadline = Date.now() + STATUS_BOUND_MS + 1_500;
  while (Date.now() < deadline) {
    if ((await http.get(rest('/users/me'), { token })).status === 401) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe('access token claims', () => {
  it('when tokens are issued by login and refresh, then iat and exp are whole seconds, exp = iat + expires_in, and each carries pwv', async () => {
    const account = await registerAccount(stack.restUrl, 'claims');
    const login = await issueTokens(stack.restUrl, account.username, account.password);
    const refreshed = await http.post(rest('/auth/refresh'), {
      json: { refresh_token: login.refresh_token },
    });
    expect(refreshed.status).toBe(200);
    for (const answer of [login, refreshed.body as typeof login]) {
      const { iat, exp, pwv } = claimsOf(answer.access_token);
      expect({ iat: Number.isInteger(iat), exp: Number.isInteger(exp) }).toEqual({ iat: true, exp: true });
      expect(exp - iat).toBe(answer.expires_in);
      expect(pwv).toBe(0);
    }
  });

  it('when the password is reset, then the token issued before is refused and one issued just after (the same second) is accepted', async () => {
    const account = await registerAccount(stack.restUrl, 'pwvorder');
    let password = account.password;
    let sameSecond = 0;
    for (let attempt = 1; attempt <= 8 && sameSecond === 0; attempt += 1) {
      const before = (await issueTokens(stack.restUrl, account.username, password)).access_token;
      // Start just after a second begins, so the reset and the next login fall in the same second.
      await new Promise((resolve) => setTimeout(resolve, 1_010 - (Date.now() % 1_000)));
      const next = `new-password-${attempt}x`;
      const reset = await http.post(rest(`/users/${account.id}/reset-password`), {
        token: before,
        json: { current_password: password, new_password: next },
      });
      expect(reset.status).toBe(200);
      const resetSecond = Math.floor(Date.now() / 1000);
      password = next;
      const after = (await issueTokens(stack.restUrl, account.username, password)).access_token;
      if (claimsOf(after).iat === resetSecond) sameSecond += 1;
      expect(claimsOf(after).pwv).toBe(attempt);
      expect(claimsOf(after).pwv).toBeGreaterThan(claimsOf(before).pwv!);
      expect(await refusedSoon(before)).toBe(true);
      const me = await http.get(rest('/users/me'), { token: after });
      expect(me.status).toBe(200);
      expect(me.body.username).toBe(account.username);
    }
    // The edge this is about happened: a token issued in the very second of the reset, and it works.
    expect(sameSecond).toBeGreaterThan(0);
  });
});
