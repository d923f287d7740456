/**
 * Whose budget a request spends: a verified bearer token's user, else the API key (by its SHA-256 digest), else the
 * client IP. An invalid token never earns its own bucket: it counts as the IP. API keys are not verified here (that
 * takes a network hop), so a client could invent a fresh key per request to get a fresh bucket; once an IP has sent
 * many rejected keys (401) in a window, its API-key requests spend the IP's budget instead.
 */
import type { ServerResponse } from 'node:http';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { AccessTokenVerifier, digestSecret } from '@platform/auth';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const BAD_API_KEYS_PER_WINDOW = 20;

export interface CallerCredentials {
  authorization?: string | undefined;
  apiKey?: string | undefined;
  /** The client address as the process sees it (after TRUST_PROXY). */
  ip: string;
}

export interface IdentityResolver {
  identityOf(caller: CallerCredentials, res: ServerResponse): Promise<string>;
}

export function createIdentityResolver(jwtSecret: string, windowSeconds: number): IdentityResolver {
  const tokens = new AccessTokenVerifier(jwtSecret);
  const rejectedKeys = new RateLimiterMemory({ points: BAD_API_KEYS_PER_WINDOW, duration: windowSeconds });
  return {
    async identityOf(caller, res) {
      if (caller.authorization || !caller.apiKey) return callerIdentity(tokens, caller);
      const ip = `ip:${caller.ip}`;
      const seen = await rejectedKeys.get(ip);
      if (seen && seen.consumedPoints >= BAD_API_KEYS_PER_WINDOW) return ip;
      res.once('finish', () => {
        if (res.statusCode === 401) rejectedKeys.consume(ip).catch(() => undefined);
      });
      return callerIdentity(tokens, caller);
    },
  };
}

/**
 * The identity alone, for a caller whose API key (if any) was already verified: the bearer token's user when the token
 * verifies (else the IP), else the key's digest, else the IP.
 */
export function callerIdentity(tokens: AccessTokenVerifier, caller: CallerCredentials): string {
  const ip = `ip:${caller.ip}`;
  if (caller.authorization) {
    const token = BEARER.exec(caller.authorization)?.[1];
    const claims = token ? tokens.tryVerify(token) : undefined;
    return claims ? `u:${claims.sub}` : ip;
  }
  return caller.apiKey ? `k:${digestSecret(caller.apiKey)}` : ip;
}
