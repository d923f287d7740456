/**
 * Rate limits at the gateway for direct GraphQL clients: one budget per verified token's user, else per API key
 * (SHA-256 digest), else per client IP; the same headers as the REST facade, and a GraphQL-shaped 429 with
 * Retry-After. Counters live in Redis with an in-process insurance limiter (RATE_LIMIT_FAIL_MODE, as in the facade).
 * Calls from the REST facade carry a proof derived from the JWT secret and are not counted twice.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { AccessTokenVerifier } from '@platform/auth';
import type { Logger } from '@platform/logging';

export interface GatewayRateLimitOptions {
  redisUrl?: string | undefined;
  points: number;
  windowSeconds: number;
  failMode: 'open' | 'closed';
  commandTimeoutMs: number;
  jwtSecret: string;
  /** TRUST_PROXY: `false`, `true` (leftmost X-Forwarded-For) or a hop count (that many proxies in front). */
  trustProxy: string;
  logger: Logger;
}

export interface GatewayRateLimiter {
  /** Counts the request and sets the headers; false when it answered 429 (or 503 in `closed` mode) itself. */
  admit(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Resolves true once Redis is connected (at once without Redis), false after `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const FACADE_PROOF_HEADER = 'x-facade-proof';
/** Same derivation as apps/rest/src/http/rate-limit.ts `facadeProofHeaders`. */
const facadeProof = (secret: string) =>
  createHmac('sha256', secret).update('platform/rate-limit-exemption/rest-facade').digest();
const BEARER = /^Bearer\s+(\S+)\s*$/i;
const MAX_CACHED_TOKENS = 10_000;
const BAD_API_KEYS_PER_WINDOW = 20;

export function createGatewayRateLimiter(options: GatewayRateLimitOptions): GatewayRateLimiter {
  const redis = options.redisUrl
    ? connectRedis(options.redisUrl, options.commandTimeoutMs, options.logger)
    : undefined;
  const common = { keyPrefix: 'rl:gql', points: options.points, duration: options.windowSeconds };
  const memory = new RateLimiterMemory(common);
  const limiter: RateLimiterAbstract = redis
    ? new RateLimiterRedis({
        ...common,
        storeClient: redis,
        rejectIfRedisNotReady: true,
        inMemoryBlockOnConsumed: options.points + 1,
        ...(options.failMode === 'open' ? { insuranceLimiter: memory } : {}),
      })
    : memory;
  const badApiKeys = new RateLimiterMemory({
    points: BAD_API_KEYS_PER_WINDOW,
    duration: options.windowSeconds,
  });
  const proof = facadeProof(options.jwtSecret);
  const tokens = new AccessTokenVerifier(options.jwtSecret, MAX_CACHED_TOKENS);
  const policy = `"default";q=${options.points};w=${options.windowSeconds}`;

  const tokenIdentity = (token: string): string | undefined => {
    const claims = tokens.tryVerify(token);
    return claims ? `u:${claims.sub}` : undefined;
  };

  const clientIp = (req: IncomingMessage): string => {
    const peer = req.socket.remoteAddress ?? 'unknown';
    const trust = options.trustProxy.trim().toLowerCase();
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
  };

  const isFacade = (req: IncomingMessage): boolean => {
    const presented = req.headers[FACADE_PROOF_HEADER];
    if (typeof presented !== 'string' || presented === '') return false;
    const given = Buffer.from(presented, 'base64url');
    return given.length === proof.length && timingSafeEqual(given, proof);
  };

  const setHeaders = (res: ServerResponse, remaining: number, resetSeconds: number) => {
    res.setHeader('x-ratelimit-limit', String(options.points));
    res.setHeader('x-ratelimit-remaining', String(remaining));
    res.setHeader('x-ratelimit-reset', String(resetSeconds));
    res.setHeader('ratelimit-policy', policy);
    res.setHeader('ratelimit', `"default";r=${remaining};t=${resetSeconds}`);
  };

  const refuse = (
    res: ServerResponse,
    status: 429 | 503,
    retryAfter: number,
    code: string,
    message: string,
  ) => {
    res
      .writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'retry-after': String(retryAfter),
      })
      .end(JSON.stringify({ errors: [{ message, extensions: { code } }] }));
  };

  return {
    async admit(req, res) {
      if (isFacade(req)) return true;
      const ip = `ip:${clientIp(req)}`;
      let identity = ip;
      const authorization = req.headers.authorization;
      const apiKey = req.headers['x-api-key'];
      if (authorization) {
        const token = BEARER.exec(authorization)?.[1];
        identity = (token && tokenIdentity(token)) || ip;
      } else if (typeof apiKey === 'string' && apiKey !== '') {
        const bad = await badApiKeys.get(ip);
        if (!bad || bad.consumedPoints < BAD_API_KEYS_PER_WINDOW) {
          identity = `k:${createHash('sha256').update(apiKey, 'utf8').digest('hex')}`;
          res.once(
            'finish',
            () => void (res.statusCode === 401 ? badApiKeys.consume(ip).catch(() => undefined) : undefined),
          );
        }
      }
      try {
        const result = await limiter.consume(identity);
        setHeaders(res, result.remainingPoints, Math.ceil(result.msBeforeNext / 1000));
        return true;
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          const reset = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
          setHeaders(res, 0, reset);
          refuse(res, 429, reset, 'RATE_LIMITED', 'Too many requests; try again later');
        } else {
          refuse(res, 503, 1, 'SERVICE_UNAVAILABLE', 'Service temporarily unavailable');
        }
        return false;
      }
    },
    ready: (timeoutMs) =>
      !redis || redis.status === 'ready'
        ? Promise.resolve(true)
        : new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => {
              redis.off('ready', onReady);
              resolve(false);
            }, timeoutMs);
            const onReady = () => {
              clearTimeout(timer);
              resolve(true);
            };
            redis.once('ready', onReady);
          }),
    close: async () => {
      if (!redis) return;
      try {
        await redis.quit();
      } catch {
        redis.disconnect();
      }
    },
  };
}

function connectRedis(url: string, commandTimeoutMs: number, logger: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    commandTimeout: commandTimeoutMs,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  let healthy = true;
  redis.on('ready', () => {
    if (!healthy) logger.info('rate limiter: Redis is back; shared limits resume');
    healthy = true;
  });
  const down = (message: string) => {
    if (healthy)
      logger.warn({ reason: message }, 'rate limiter: Redis unreachable; using the in-process limiter');
    healthy = false;
  };
  redis.on('error', (error: Error) => down(error.message));
  redis.on('close', () => down('connection closed'));
  return redis;
}
