/**
 * HTTP hardening of the gateway's node:http handler: helmet's headers (a strict CSP everywhere: the IDE page sets its
 * own, nonce-based one), `Cache-Control: no-store`, and CORS for an allowlist of origins (CORS_ORIGINS: exact origins,
 * or `*`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

const ALLOWED_METHODS = 'GET, POST, OPTIONS';
const ALLOWED_HEADERS =
  'Authorization, Content-Type, Accept, X-API-Key, X-Request-Id, Apollo-Require-Preflight, X-Apollo-Operation-Name';
const EXPOSED_HEADERS =
  'X-Request-Id, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy';

/** Applies the headers; returns false when it answered the request itself (a CORS preflight). */
export type HttpHardening = (req: IncomingMessage, res: ServerResponse) => boolean;

export function createHttpHardening(options: { corsOrigins: string }): HttpHardening {
  const headers = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"] },
    },
    crossOriginEmbedderPolicy: false,
    strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
  });
  const entries = options.corsOrigins
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, '').toLowerCase())
    .filter(Boolean);
  const anyOrigin = entries.includes('*');
  const origins = new Set(entries);

  return (req, res) => {
    headers(req, res, () => undefined);
    res.removeHeader('x-powered-by');
    res.setHeader('vary', 'Origin');
    // Every GraphQL answer is for its caller (and a mutation's may carry a token pair or a new API key); none has a
    // validator to revalidate with: no cache keeps any (the IDE's pages and assets say their own).
    res.setHeader('cache-control', 'no-store');
    const origin = req.headers.origin;
    if (!origin || !(anyOrigin || origins.has(origin.toLowerCase()))) return true;
    res.setHeader('access-control-allow-origin', anyOrigin ? '*' : origin);
    res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.writeHead(204, {
        'access-control-allow-methods': ALLOWED_METHODS,
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': '600',
      });
      res.end();
      return false;
    }
    return true;
  };
}
