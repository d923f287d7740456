/**
 * A REST route is declared once: method, path, security, zod schemas for params, query and body, and responses.
 * The same declaration validates requests, registers the express handler and generates the OpenAPI document.
 */
import type { Request } from 'express';
import type { z } from 'zod';
import type { Gateway, CallCredentials } from '../gateway/gateway-client';
import type { RestEnvironment } from '../environment';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** public: no credential; bearer: a JWT; bearer-or-api-key: a JWT or an API key (header, query or cookie). */
export type Security = 'public' | 'bearer' | 'bearer-or-api-key';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
}

export interface RouteContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  credentials: CallCredentials;
  /** The API version the request asked for (docs/interface.md#versioning); undefined means current. */
  version: number | undefined;
  gateway: Gateway;
  env: RestEnvironment;
  request: Request;
  /**
   * PUT/PATCH/DELETE or a POST action of a `versioned` route: the version its precondition names (null: unconditional;
   * -1 for `If-None-Match: *`).
   */
  expectedVersion: number | null;
}

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteDefinition<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** Express-style path (`/users/:user_id`); OpenAPI shows `{user_id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Security;
  /**
   * Scope the operation needs: OpenAPI shows it and the subgraphs enforce it (the facade cannot: an API key's scopes
   * are known only once the gateway exchanges it). apps/rest/test/route-scopes.e2e.ts holds the two together: every
   * declaration is called over the stack without the scope (403) and with only it (not refused).
   */
  scope?: string;
  params?: P;
  query?: Q;
  /** The query schema OpenAPI shows when it depends on the deployment (e.g. USERS_LIST_STYLE); `query` otherwise. */
  documentedQuery?: (env: RestEnvironment) => z.ZodType;
  body?: B;
  /** Accepted request media types; JSON by default. */
  bodyTypes?: ReadonlyArray<'json' | 'form'>;
  /** Status for invalid path parameters: validation (VALIDATION_STATUS) by default, or 400 as for item ids. */
  invalidParamsStatus?: 'validation' | 400;
  responses: Record<number, ResponseSpec>;
  /**
   * POST only: `store` (default) keeps the outcome per Idempotency-Key for replays; `validate-only` (routes that issue
   * credentials) checks the key but stores nothing, so no token ever sits in Redis.
   */
  idempotency?: 'store' | 'validate-only';
  /**
   * The route's target is a record with a write counter: its GET answers a strong ETag from it; PUT/PATCH/DELETE, and
   * a POST action on it (an account action), honour `If-Match` / `If-None-Match: *` atomically in the subgraph (412
   * when stale; 428 for a PUT/PATCH/DELETE without If-Match under REQUIRE_IF_MATCH) and answer the new ETag.
   */
  versioned?: boolean;
  /** A POST that creates a versioned record: answers its strong ETag and `Location`. */
  createsVersioned?: boolean;
  /** A paginated listing: OpenAPI documents its `Link` header and weak ETag. */
  listing?: boolean;
  /**
   * Its answer carries a credential or a secret (a token pair, a new API key), or its request a refresh token:
   * `Cache-Control: no-store` (and `Pragma: no-cache`) instead of every other answer's `private, no-cache`, replays
   * included, so no cache anywhere keeps it (http/cache-policy.ts).
   */
  carriesSecret?: boolean;
  handler: (context: RouteContext<z.infer<P>, z.infer<Q>, z.infer<B>>) => Promise<RouteResult>;
}

/** Identity helper that keeps the schema types flowing into the handler. */
export const defineRoute = <P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  route: RouteDefinition<P, Q, B>,
): RouteDefinition => route as unknown as RouteDefinition;
