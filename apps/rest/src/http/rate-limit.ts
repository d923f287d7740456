/**
 * The facade's rate limits: a general budget per identity (user, API key or IP, read from the caller established
 * before it: http/caller.ts) with the X-RateLimit-* and IETF RateLimit headers on every response. Login attempts are
 * throttled where credentials are checked (the auth subgraph's LoginThrottle), so REST and GraphQL logins share one
 * budget.
 * Over budget is an AppError('RATE_LIMITED') with Retry-After, rendered by the one error handler.
 */
import type { Request, RequestHandler } from 'express';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logging';
import {
  createIdentityResolver,
  createLimiterBackend,
  rateLimitHeaders,
  retryAfterSeconds,
  type LimitOutcome,
} from '@platform/rate-limit';
import type { RestEnvironment } from '../environment';
import { callerOf } from './caller';

export interface RateLimiting {
  /** The general budget; mount after the exempt routes (docs, openapi) and before the body parsers. */
  general: RequestHandler;
  /** Resolves once the shared store (Redis) is connected, or false after `timeoutMs` (limits then start in-process). */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

type RateLimitSettings = Pick<
  RestEnvironment,
  | 'REDIS_URL'
  | 'RATE_LIMIT_POINTS'
  | 'RATE_LIMIT_WINDOW'
  | 'RATE_LIMIT_FAIL_MODE'
  | 'REDIS_COMMAND_TIMEOUT_MS'
>;

/** The client address as express sees it under TRUST_PROXY. */
const clientIp = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

export function createRateLimiting(env: RateLimitSettings, logger: Logger): RateLimiting {
  const backend = createLimiterBackend({
    redisUrl: env.REDIS_URL,
    failMode: env.RATE_LIMIT_FAIL_MODE,
    commandTimeoutMs: env.REDIS_COMMAND_TIMEOUT_MS,
    logger,
  });
  const general = backend.create({
    keyPrefix: 'rl:rest',
    points: env.RATE_LIMIT_POINTS,
    durationSeconds: env.RATE_LIMIT_WINDOW,
  });
  const identities = createIdentityResolver(env.RATE_LIMIT_WINDOW);

  const generalHandler: RequestHandler = (req, res, next) => {
    void (async () => {
      // The caller established before the limit (http/caller.ts): its token verified once, its key's digest.
      const identity = await identities.identityOf({ ...callerOf(res).presented, ip: clientIp(req) }, res);
      const outcome = await general.consume(identity);
      res.set(rateLimitHeaders(outcome, general));
      if (!outcome.allowed) throw rateLimited(outcome);
    })().then(() => next(), next);
  };

  return {
    general: generalHandler,
    ready: (timeoutMs) => backend.ready(timeoutMs),
    close: () => backend.close(),
  };
}

const rateLimited = (outcome: LimitOutcome, message = 'Too many requests; try again later') =>
  new AppError('RATE_LIMITED', message, { headers: { 'retry-after': retryAfterSeconds(outcome) } });
