/** Turns route declarations into an express router: credentials, validation, the handler, and 405 with `Allow`. */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { malformedCredentialError } from '@platform/auth';
import { AppError, validationError } from '@platform/errors';
import { parseInput } from '@platform/contracts';
import type { Gateway } from '../gateway/gateway-client';
import type { RestEnvironment } from '../environment';
import type { RouteDefinition } from './route';
import { apiKeyFrom } from './credentials';
import { callerOf } from './caller';
import { requestIdOf } from './request-context';
import { apiVersionOf } from '../versioning/versioning-middleware';
import type { Idempotency } from './idempotency';
import { bodyTag, createPrecondition, notModified, readPrecondition, writePrecondition } from './conditional';
import { secretAnswer } from './cache-policy';
import { answerWithin, lateAnswer } from './write-answer';

export interface RouterDeps {
  gateway: Gateway;
  env: RestEnvironment;
  idempotency: Idempotency;
}

const MEDIA_TYPES = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;
/** What `req.is` accepts per declared type: JSON includes the `+json` types the JSON parser reads (vnd.api+json). */
const MEDIA_MATCHERS = {
  json: ['application/json', 'application/*+json'],
  form: ['application/x-www-form-urlencoded'],
} as const;

export function createRouter(routes: readonly RouteDefinition[], deps: RouterDeps): Router {
  const router = Router({ strict: false, caseSensitive: true });
  const methodsByPath = new Map<string, Set<string>>();
  for (const route of routes) {
    const methods = methodsByPath.get(route.path) ?? new Set<string>();
    methods.add(route.method.toUpperCase());
    if (route.method === 'get') methods.add('HEAD');
    methodsByPath.set(route.path, methods);
  }
  // Each path's 405 comes before every route, so a literal path (`/users/me`) answers for itself: `PUT /users/me` is 405,
  // not the `PUT /users/:user_id` route refusing `me` as an id.
  for (const [path, methods] of methodsByPath) {
    const allow = [...methods].sort().join(', ');
    router.all(path, (req: Request, _res: Response, next: NextFunction) => {
      if (methods.has(req.method)) return next();
      next(new AppError('METHOD_NOT_ALLOWED', 'Method not allowed', { headers: { allow } }));
    });
  }
  for (const route of routes) {
    router[route.method](route.path, (req: Request, res: Response, next: NextFunction) => {
      handle(route, req, res, deps).catch(next);
    });
  }
  return router;
}

async function handle(route: RouteDefinition, req: Request, res: Response, deps: RouterDeps): Promise<void> {
  const authorization = req.headers.authorization || undefined;
  const apiKey =
    deps.env.API_KEY_PROTECTION && route.security === 'bearer-or-api-key' ? apiKeyFrom(req) : undefined;
  // Before anything else: a credential outside its alphabet is refused here, never forwarded as a header.
  const malformed = malformedCredentialError(authorization, apiKey);
  if (malformed) throw malformed;
  if (route.security === 'bearer' && !authorization) throw notAuthenticated();
  if (route.security === 'bearer-or-api-key' && !authorization && !apiKey) throw notAuthenticated();

  const params = parsePart(route.params, req.params, route.invalidParamsStatus === 400);
  // An API key in `?api_key=` is a credential (read above, also when empty), not a parameter of the route (whose
  // query may be strict).
  const credentialInQuery = deps.env.API_KEY_PROTECTION && route.security === 'bearer-or-api-key';
  const given = credentialInQuery ? withoutApiKey(req.query) : req.query;
  // A listing refuses what it does not know itself (rest-list-query.ts: its filters are open-ended); every other route
  // takes only the query parameters it declares (a misspelt `fileds`, a bracketed `expand[x]`).
  if (!route.listing) refuseUndeclared(route.query, given);
  const query = parsePart(route.query, given, false);
  let body: unknown;
  if (route.body) {
    const accepted = route.bodyTypes ?? ['json'];
    const matched = req.is(accepted.flatMap((type) => MEDIA_MATCHERS[type]));
    // null: no body at all, so validation names the missing fields; false: a body of another media type.
    if (matched === false) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Content-Type must be ${accepted.map((t) => MEDIA_TYPES[t]).join(' or ')}`,
      );
    }
    body = parseInput(route.body, (matched === null ? undefined : req.body) ?? {});
  }
  // An account action (POST on a versioned record) honours a precondition sent, but REQUIRE_IF_MATCH asks it of
  // PUT, PATCH and DELETE only.
  const expectedVersion =
    route.versioned && route.method !== 'get'
      ? writePrecondition(req, deps.env.REQUIRE_IF_MATCH && route.method !== 'post')
      : null;
  if (route.createsVersioned) createPrecondition(req);
  if (route.method === 'get') readPrecondition(req);
  if (route.carriesSecret) secretAnswer(res);
  const caller = callerOf(res);
  const requestId = requestIdOf(res);
  const credentials = {
    authorization,
    apiKey,
    requestId,
    clientIp: req.ip,
    caller: () => caller.resolve(requestId, apiKey !== undefined),
    snapshot: caller.presented.snapshot,
  };
  if (route.method === 'post') {
    const store = (route.idempotency ?? 'store') === 'store';
    const outcome = await deps.idempotency.guard(req, res, {
      store,
      body,
      caller: credentials.caller,
      ...(route.scope ? { scope: route.scope } : {}),
    });
    if (outcome === 'replayed') return;
  }

  const running = route.handler({
    params,
    query,
    body,
    credentials,
    version: apiVersionOf(res),
    gateway: deps.gateway,
    env: deps.env,
    request: req,
    expectedVersion,
  });
  // A write's client is answered by its deadline plus the commit bound; the real outcome is kept for its key (ADR 0020).
  const answerWithinMs = deps.gateway.answerWithinMs;
  const result =
    route.method === 'get' || answerWithinMs === undefined
      ? await running
      : await answerWithin(running, answerWithinMs, (late) =>
          deps.idempotency.settleLate(res, lateAnswer(late, req, res, deps.env)),
        );
  // `Link` adds to what is there (v1's deprecation links); every other header replaces.
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    if (name === 'link') res.append('link', value);
    else res.set(name, value);
  }
  if (route.method === 'get' && result.status === 200) {
    // A single resource without a version of its own is tagged by its exact body (still a strong validator).
    const etag = result.headers?.['etag'] ?? bodyTag(result.body, false, apiVersionOf(res));
    // A 304 answers the tag the client holds (any coding of this representation), so its cache entry stays valid.
    const held = notModified(req, etag);
    res.set('etag', held ?? etag);
    if (held) {
      res.status(304).end();
      return;
    }
  }
  if (result.body === undefined || result.status === 204) {
    res.status(result.status).end();
  } else {
    res.status(result.status).json(result.body);
  }
}

function parsePart(schema: z.ZodType | undefined, value: unknown, invalidIsBadRequest: boolean): unknown {
  if (!schema) return value;
  try {
    return parseInput(schema, value ?? {});
  } catch (error) {
    if (invalidIsBadRequest && error instanceof AppError) {
      throw new AppError('BAD_REQUEST', error.message, error.details ? { details: error.details } : {});
    }
    throw error;
  }
}

/** 422 naming each query parameter the route's schema does not declare (read from the raw query: `__proto__` too). */
function refuseUndeclared(schema: z.ZodType | undefined, query: unknown): void {
  const declared = schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
  const unknown = Object.keys((query ?? {}) as object).filter((key) => !declared.includes(key));
  if (unknown.length > 0) {
    throw validationError(unknown.map((field) => ({ field, message: 'is not a known parameter' })));
  }
}

const withoutApiKey = (query: Request['query']): Record<string, unknown> => {
  const { api_key: _credential, ...rest } = query as Record<string, unknown>;
  return rest;
};

const notAuthenticated = () =>
  new AppError('UNAUTHENTICATED', 'Not authenticated', { headers: { 'www-authenticate': 'Bearer' } });
