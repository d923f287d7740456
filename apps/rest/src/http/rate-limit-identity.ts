/**
 * Whose budget a request spends: a verified bearer token's user, else the API key (by its SHA-256 digest), else
 * the client IP (as express sees it under TRUST_PROXY). An invalid token never earns its own bucket: it counts as the IP.
 */
import type { Request } from 'express';
import { digestSecret, verifyAccessToken } from '@platform/auth';
import { apiKeyFrom } from './credentials';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const MAX_CACHED_TOKENS = 10_000;

/** Verified tokens by their text: HS256 verification is cheap, but a busy client sends the same token many times. */
export class TokenIdentityCache {
  private readonly entries = new Map<string, { identity: string; expiresAtMs: number }>();

  constructor(private readonly secret: string) {}

  identityOf(token: string, nowMs: number): string | undefined {
    const hit = this.entries.get(token);
    if (hit) {
      if (hit.expiresAtMs > nowMs) return hit.identity;
      this.entries.delete(token);
    }
    let claims;
    try {
      claims = verifyAccessToken(token, this.secret);
    } catch {
      return undefined;
    }
    const identity = `u:${claims.sub}`;
    if (this.entries.size >= MAX_CACHED_TOKENS) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(token, { identity, expiresAtMs: (claims.exp ?? 0) * 1000 });
    return identity;
  }
}

export function rateLimitIdentity(req: Request, tokens: TokenIdentityCache, nowMs = Date.now()): string {
  const authorization = req.headers.authorization;
  if (authorization) {
    const token = BEARER.exec(authorization)?.[1];
    const identity = token ? tokens.identityOf(token, nowMs) : undefined;
    if (identity) return identity;
    return ipIdentity(req);
  }
  const apiKey = apiKeyFrom(req);
  if (apiKey) return `k:${digestSecret(apiKey)}`;
  return ipIdentity(req);
}

export const ipIdentity = (req: Request): string => `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
