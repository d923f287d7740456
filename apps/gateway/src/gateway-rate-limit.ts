/**
 * Rate limits at the gateway for direct GraphQL clients: one budget per verified token's user, else per API key
 * (SHA-256 digest), else per client IP; the same headers as the REST facade, and a GraphQL-shaped 429 with
 * Retry-After. Counters live in Redis with an in-process insurance limiter (RATE_LIMIT_FAIL_MODE, as in the facade).
 * Calls from the REST facade carry a proof derived from the JWT secret and are not counted twice.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Secrets } from '@platform/auth';
import type { Logger } from '@platform/logging';
import {
  FACADE_PROOF_HEADER,
  createIdentityResolver,
  createLimiterBackend,
  facadeProofChecker,
  rateLimitHeaders,
  retryAfterSeconds,
  type CallerCredentials,
  type LimitOutcome,
} from '@platform/rate-limit';

export interface GatewayRateLimitOptions {
  redisUrl?: string | undefined;
  points: number;
  windowSeconds: number;
  failMode: 'open' | 'closed';
  commandTimeoutMs: number;
  jwtSecret: Secrets;
  /** TRUST_PROXY: `false`, `true` (leftmost X-Forwarded-For) or a hop count (that many proxies in front). */
  trustProxy: string;
  logger: Logger;
}

export interface GatewayRateLimiter {
  /**
   * Counts the request against the budget of the caller established for it (its credential presented and verified
   * once) and sets the headers; false when it answered 429 (or 503 in `closed` mode) itself.
   */
  admit(req: IncomingMessage, res: ServerResponse, caller: Omit<CallerCredentials, 'ip'>): Promise<boolean>;
  /** Resolves true once Redis is connected (at once without Redis), false after `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** The client address: the socket peer, or X-Forwarded-For under TRUST_PROXY (`true`: leftmost; N: N proxies). */
export function clientIp(req: IncomingMessage, trustProxy: string): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  const trust = trustProxy.trim().toLowerCase();
  if (trust === '' || trust === 'false' || trust === '0') return peer;
  const forwarded = String(req.headers['x-forwarded-for'] ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (forwarded.length === 0) return peer;
  if (trust === 'true') return forwarded[0] ?? peer;
  const hops = Number(trust);
  if (!Number.isInteger(hops) || hops < 1) return peer;
  // The peer is the nearest proxy; each trusted hop before it appended one address.
  return forwarded[Math.max(0, forwarded.length - hops)] ?? peer;
}

function refuse(
  res: ServerResponse,
  status: 429 | 503,
  retryAfter: string,
  code: string,
  message: string,
): void {
  res
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'retry-after': retryAfter })
    .end(JSON.stringify({ errors: [{ message, extensions: { code } }] }));
}

export function createGatewayRateLimiter(options: GatewayRateLimitOptions): GatewayRateLimiter {
  const backend = createLimiterBackend({
    redisUrl: options.redisUrl,
    failMode: options.failMode,
    commandTimeoutMs: options.commandTimeoutMs,
    logger: options.logger,
  });
  const limiter = backend.create({
    keyPrefix: 'rl:gql',
    points: options.points,
    durationSeconds: options.windowSeconds,
  });
  const identities = createIdentityResolver(options.windowSeconds);
  const isFacade = facadeProofChecker(options.jwtSecret);

  return {
    async admit(req, res, caller) {
      if (isFacade(req.headers[FACADE_PROOF_HEADER])) return true;
      const identity = await identities.identityOf({ ...caller, ip: clientIp(req, options.trustProxy) }, res);
      let outcome: LimitOutcome;
      try {
        outcome = await limiter.consume(identity);
      } catch {
        // `closed` mode with Redis unavailable: nothing passes unmetered.
        refuse(res, 503, '1', 'SERVICE_UNAVAILABLE', 'Service temporarily unavailable');
        return false;
      }
      for (const [name, value] of Object.entries(rateLimitHeaders(outcome, limiter)))
        res.setHeader(name, value);
      if (outcome.allowed) return true;
      refuse(res, 429, retryAfterSeconds(outcome), 'RATE_LIMITED', 'Too many requests; try again later');
      return false;
    },
    ready: (timeoutMs) => backend.ready(timeoutMs),
    close: () => backend.close(),
  };
}
