/**
 * CORS with an allowlist (CORS_ORIGINS, comma-separated exact origins, or `*`): allowed origins get the CORS headers
 * and answered preflights; any other origin gets none, so browsers refuse the cross-origin read. No credentials mode.
 */
import type { RequestHandler } from 'express';

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept, Accept-Language, X-API-Key, X-API-Version, X-Request-Id';
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-API-Version',
  'Deprecation',
  'Sunset',
  'Link',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
].join(', ');

export function parseOrigins(raw: string): { any: boolean; origins: Set<string> } {
  const entries = raw
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, '').toLowerCase())
    .filter(Boolean);
  return { any: entries.includes('*'), origins: new Set(entries.filter((origin) => origin !== '*')) };
}

export function corsAllowlist(raw: string): RequestHandler {
  const { any, origins } = parseOrigins(raw);
  return (req, res, next) => {
    const origin = req.headers.origin;
    res.vary('Origin');
    if (!origin || !(any || origins.has(origin.toLowerCase()))) {
      next();
      return;
    }
    res.setHeader('access-control-allow-origin', any ? '*' : origin);
    res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.setHeader('access-control-allow-methods', ALLOWED_METHODS);
      res.setHeader('access-control-allow-headers', ALLOWED_HEADERS);
      res.setHeader('access-control-max-age', '600');
      // A preflight's lifetime is Access-Control-Max-Age; no HTTP cache keeps it.
      res.setHeader('cache-control', 'no-store');
      res.status(204).end();
      return;
    }
    next();
  };
}
