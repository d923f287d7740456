/** HTTP hardening of the facade: helmet's headers, no X-Powered-By, and which proxies may name the client IP. */
import type { Express } from 'express';
import helmet from 'helmet';

/**
 * TRUST_PROXY for express `trust proxy`: `false` (default: the socket peer is the client), `true` (any proxy; only
 * behind an ingress that overwrites X-Forwarded-For), a hop count (`1` behind the k8s ingress), or a comma list of
 * addresses / subnets / express names (`loopback, 10.0.0.0/8`).
 */
export function trustProxySetting(raw: string): boolean | number | string[] {
  const value = raw.trim().toLowerCase();
  if (value === '' || value === 'false' || value === '0') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

export function applySecurity(app: Express, env: { TRUST_PROXY: string }): void {
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(env.TRUST_PROXY));
  app.use(
    helmet({
      // Helmet's default policy (same-origin scripts, styles, images) fits /docs, which serves Swagger UI from local
      // assets; plain http stays usable in development (no upgrade-insecure-requests) and nothing may frame the API.
      contentSecurityPolicy: { directives: { frameAncestors: ["'none'"], upgradeInsecureRequests: null } },
      strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
    }),
  );
}
