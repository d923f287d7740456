/** Builds the REST facade as an express app from its dependencies; main.ts listens, tests start it on port 0. */
import express, { type Express } from 'express';
import type { Logger } from '@platform/logging';
import type { RestEnvironment } from './environment';
import type { Gateway } from './gateway/gateway-client';
import { createRouter } from './http/register-routes';
import { createErrorHandler, notFoundHandler } from './http/error-handler';
import { requestId } from './http/request-context';
import { requestLog } from './http/request-log';
import { applySecurity } from './http/security';
import { corsAllowlist } from './http/cors';
import { createRateLimiting, type RateLimiting } from './http/rate-limit';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { createDocsRouter } from './openapi/docs-routes';
import { resolveApiVersion, unwrapVersionedBody } from './versioning/versioning-middleware';
import { allRoutes } from './routes';
import { createIdempotency, type Idempotency } from './http/idempotency';
import { routeLabel } from './http/route-label';
import { privateAnswers } from './http/cache-policy';
import { establishCaller } from './http/caller';
import type { Callers } from '@platform/federation';
import { tagsPerCoding } from './http/conditional';
import { responseCompression } from '@platform/service';
import { jsonTooDeep, jsonTooDeepMessage } from '@platform/contracts';
import { AppError } from '@platform/errors';

export interface RestAppDeps {
  env: RestEnvironment;
  logger: Logger;
  gateway: Gateway;
  /** Establishes each request's caller once (http/caller.ts). */
  callers: Callers;
  /** Rate limits (Redis-backed in main.ts); absent: an in-process limiter. */
  rateLimiting?: RateLimiting;
  /** Idempotency-Key replays (Redis-backed in main.ts); absent: no store, so keys run per IDEMPOTENCY_FAIL_MODE. */
  idempotency?: Idempotency;
}

export function createRestApp(deps: RestAppDeps): Express {
  const { env, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  applySecurity(app, env);
  app.use(corsAllowlist(env.CORS_ORIGINS));
  // gzip / Brotli above COMPRESSION_MIN_BYTES; tagsPerCoding first, so its hook sees the coding compression chose.
  app.use(tagsPerCoding);
  app.use(responseCompression(env.COMPRESSION_MIN_BYTES));
  const limits = deps.rateLimiting ?? createRateLimiting({ ...env, REDIS_URL: undefined }, logger);
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestId);
  app.use(routeLabel);
  app.use(requestLog(logger));
  // Strips /v1 and /v2 and `?version`, so one router (with its 404 and 405) serves every version.
  app.use(resolveApiVersion);

  app.use(createDocsRouter(buildOpenApiDocument(allRoutes, env)));
  // Everything below answers one caller: private, varying with the credential (the docs above are public).
  app.use(privateAnswers);
  // The caller, once: its credential's form and signature, and the request's generations read (http/caller.ts).
  app.use(establishCaller(deps.callers));
  // Everything below spends the caller's budget (health and docs above are exempt).
  app.use(limits.general);

  app.use(
    express.json({
      limit: env.MAX_BODY_BYTES,
      strict: true,
      type: ['application/json', 'application/*+json'],
    }),
  );
  app.use(express.urlencoded({ limit: env.MAX_BODY_BYTES, extended: false, parameterLimit: 100 }));
  // Right after parsing, before anything walks the body (validation, idempotency's hash, logging).
  app.use((req, _res, next) => {
    const tooDeep = jsonTooDeep(req.body);
    if (!tooDeep) return next();
    const message = jsonTooDeepMessage(tooDeep.under);
    next(new AppError('BAD_REQUEST', message, { details: [{ field: tooDeep.under ?? 'body', message }] }));
  });
  app.use(unwrapVersionedBody);

  const idempotency = deps.idempotency ?? createIdempotency({ ...env, REDIS_URL: undefined }, logger);
  app.use(createRouter(allRoutes, { gateway: deps.gateway, env, idempotency }));
  app.use(notFoundHandler);
  app.use(createErrorHandler(env, logger));
  return app;
}
