/**
 * Whose budget a request spends, read from the caller the process established once (libs/federation
 * credential-checks.ts `present`: a bearer token's verified claims, an API key's digest): the token's user, else the
 * API key, else the client IP. An invalid token never earns its own bucket: it counts as the IP. API keys are not
 * verified before the limit (that takes a network hop), so a client could invent a fresh key per request to get a
 * fresh bucket; once an IP has sent many rejected keys (401) in a window, its API-key requests spend the IP's budget
 * instead.
 */
import type { ServerResponse } from 'node:http';
import { RateLimiterMemory } from 'rate-limiter-flexible';

const BAD_API_KEYS_PER_WINDOW = 20;

/** The established caller as far as the limit needs it. */
export interface CallerCredentials {
  /** `Authorization` as sent: a token that did not verify (no `claims`) counts as the IP. */
  authorization?: string | undefined;
  /** A bearer token's verified claims. */
  claims?: { sub: string } | undefined;
  /** The SHA-256 digest of the API key sent (when no Authorization was). */
  apiKeyDigest?: string | undefined;
  /** The client address as the process sees it (after TRUST_PROXY). */
  ip: string;
}

export interface IdentityResolver {
  identityOf(caller: CallerCredentials, res: ServerResponse): Promise<string>;
}

export function createIdentityResolver(windowSeconds: number): IdentityResolver {
  const rejectedKeys = new RateLimiterMemory({ points: BAD_API_KEYS_PER_WINDOW, duration: windowSeconds });
  return {
    async identityOf(caller, res) {
      const ip = `ip:${caller.ip}`;
      if (caller.authorization) return caller.claims ? `u:${caller.claims.sub}` : ip;
      if (!caller.apiKeyDigest) return ip;
      const seen = await rejectedKeys.get(ip);
      if (seen && seen.consumedPoints >= BAD_API_KEYS_PER_WINDOW) return ip;
      res.once('finish', () => {
        if (res.statusCode === 401) rejectedKeys.consume(ip).catch(() => undefined);
      });
      return `k:${caller.apiKeyDigest}`;
    },
  };
}
