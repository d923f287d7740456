/**
 * Whose budget a request spends: a verified bearer token's user, else the API key (by its SHA-256 digest), else
 * the client IP (as express sees it under TRUST_PROXY). An invalid token never earns its own bucket: it counts as the IP.
 */
import type { Request } from 'express';
import { digestSecret, type AccessTokenVerifier } from '@platform/auth';
import { apiKeyFrom } from './credentials';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
export function rateLimitIdentity(req: Request, tokens: AccessTokenVerifier, nowMs = Date.now()): string {
  const authorization = req.headers.authorization;
  if (authorization) {
    const token = BEARER.exec(authorization)?.[1];
    const claims = token ? tokens.tryVerify(token, nowMs) : undefined;
    if (claims) return `u:${claims.sub}`;
    return ipIdentity(req);
  }
  const apiKey = apiKeyFrom(req);
  if (apiKey) return `k:${digestSecret(apiKey)}`;
  return ipIdentity(req);
}

export const ipIdentity = (req: Request): string => `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
