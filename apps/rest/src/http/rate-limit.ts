/**
 * The facade's rate limits: a general budget per identity (user, API key or IP) with the X-RateLimit-* and IETF
 * RateLimit headers on every response, and login throttling per IP + username on the token endpoints.
 * Over budget is an AppError('RATE_LIMITED') with Retry-After, rendered by the one error handler.
 */
import { createHmac } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logging';
import type { RestEnvironment } from '../environment';
import {
  createLimiterBackend,
  type Limiter,
  type LimiterBackend,
  type LimitOutcome,
} from './rate-limit-store';
import { AccessTokenVerifier } from '@platform/auth';
import { ipIdentity, rateLimitIdentity } from './rate-limit-identity';

export interface RateLimiting {
  /** The general budget; mount after the exempt routes (docs, openapi) and before the body parsers. */
  general: RequestHandler;
  /** Login throttling; mount after the body parsers (it reads the username) and before the routes. */
  login: RequestHandler;
  /** Resolves once the shared store (Redis) is connected, or false after `timeoutMs` (limits then start in-process). */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

type RateLimitSettings = Pick<
  RestEnvironment,
  | 'REDIS_URL'
  | 'RATE_LIMIT_POINTS'
  | 'RATE_LIMIT_WINDOW'
  | 'LOGIN_RATE_LIMIT_POINTS'
  | 'LOGIN_RATE_LIMIT_BLOCK_SECONDS'
  | 'RATE_LIMIT_FAIL_MODE'
  | 'REDIS_COMMAND_TIMEOUT_MS'
  | 'jwtSecret'
>;

/** `/token` and `/auth/token`, also under a version prefix. */
const LOGIN_PATH = /^(?:\/v\d+)?\/(?:auth\/)?token\/?$/;
/** Failed API-key attempts per IP and window before that IP's API-key requests spend the IP's budget instead. */
const BAD_API_KEYS_PER_WINDOW = 20;

export function createRateLimiting(env: RateLimitSettings, logger: Logger): RateLimiting {
  const backend: LimiterBackend = createLimiterBackend({
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
  const login = backend.create({
    keyPrefix: 'rl:login',
    points: env.LOGIN_RATE_LIMIT_POINTS,
    durationSeconds: env.RATE_LIMIT_WINDOW,
    blockDurationSeconds: env.LOGIN_RATE_LIMIT_BLOCK_SECONDS,
  });
  const tokens = new AccessTokenVerifier(env.jwtSecret);
  // API keys are not verified here (that takes a network hop), so a client could invent a fresh key per request to
  // get a fresh bucket; once an IP has sent many rejected keys, its API-key requests spend the IP's budget instead.
  const badApiKeys = new RateLimiterMemory({
    points: BAD_API_KEYS_PER_WINDOW,
    duration: env.RATE_LIMIT_WINDOW,
  });

  const generalHandler: RequestHandler = (req, res, next) => {
    void (async () => {
      let identity = rateLimitIdentity(req, tokens);
      if (identity.startsWith('k:')) {
        const ip = ipIdentity(req);
        const bad = await badApiKeys.get(ip);
        if (bad && bad.consumedPoints >= BAD_API_KEYS_PER_WINDOW) identity = ip;
        else
          res.once(
            'finish',
            () => void (res.statusCode === 401 ? badApiKeys.consume(ip).catch(() => undefined) : undefined),
          );
      }
      const outcome = await general.consume(identity);
      setRateLimitHeaders(res, outcome, general);
      if (!outcome.allowed) throw rateLimited(outcome);
    })().then(() => next(), next);
  };

  const loginHandler: RequestHandler = (req: Request, _res: Response, next: NextFunction) => {
    if (req.method !== 'POST' || !LOGIN_PATH.test(req.path)) {
      next();
      return;
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    const username =
      typeof body['username'] === 'string' ? body['username'].trim().toLowerCase().slice(0, 256) : '';
    login
      .consume(`${ipIdentity(req)}|${username}`)
      .then(
        (outcome) =>
          next(
            outcome.allowed ? undefined : rateLimited(outcome, 'Too many login attempts; try again later'),
          ),
        next,
      );
  };

  return {
    general: generalHandler,
    login: loginHandler,
    ready: (timeoutMs) => backend.ready(timeoutMs),
    close: () => backend.close(),
  };
}

/** X-RateLimit-* (the spec's names, reset in seconds) and the IETF draft's RateLimit-Policy / RateLimit fields. */
export function setRateLimitHeaders(res: Response, outcome: LimitOutcome, limiter: Limiter): void {
  res.setHeader('x-ratelimit-limit', String(outcome.limit));
  res.setHeader('x-ratelimit-remaining', String(outcome.remaining));
  res.setHeader('x-ratelimit-reset', String(outcome.resetSeconds));
  res.setHeader('ratelimit-policy', `"default";q=${limiter.points};w=${limiter.durationSeconds}`);
  res.setHeader('ratelimit', `"default";r=${outcome.remaining};t=${outcome.resetSeconds}`);
}

const rateLimited = (outcome: LimitOutcome, message = 'Too many requests; try again later') =>
  new AppError('RATE_LIMITED', message, {
    headers: { 'retry-after': String(Math.max(1, outcome.resetSeconds)) },
  });

/**
 * The facade already spent the caller's budget here, so the gateway must not count its calls again (nor lump every
 * anonymous REST client into the facade's one IP). It proves itself with an HMAC derived from the shared JWT secret;
 * the gateway derives the same value (apps/gateway/src/gateway-rate-limit.ts). The value grants nothing but exemption.
 */
export const FACADE_PROOF_HEADER = 'x-facade-proof';
export const facadeProofHeaders = (jwtSecret: string): Record<string, string> => ({
  [FACADE_PROOF_HEADER]: createHmac('sha256', jwtSecret)
    .update('platform/rate-limit-exemption/rest-facade')
    .digest('base64url'),
});
