/** Generates the OpenAPI 3.1 document from the route declarations: the schemas that validate are the schemas shown. */
import { z } from 'zod';
import { AppError, ERROR_CODES, outcomeUnknown, PROBLEM_MEDIA_TYPE, renderError, type ErrorCode } from '@platform/errors';
import { ALL_SCOPES } from '@platform/auth';
import { LISTING_PARAMETER, listingParameterGroups } from '@platform/listing';
import type { RouteDefinition } from '../http/route';
import { CREDENTIAL_HEADERS, NO_STORE, PRIVATE_ANSWER } from '../http/cache-policy';
import { IF_MATCH_FORM, IF_NONE_MATCH_FORM } from '../http/conditional';
import { ProblemDetails, errorResponseSchema } from './error-schemas';
import { exampleFromSchema } from './schema-example';
import type { RestEnvironment } from '../environment';
import {
  API_VERSIONS,
  CURRENT_VERSION,
  MIGRATION_NOTE_PATH,
  SUPPORTED_VERSIONS,
  VERSION_SPELLINGS,
} from '../versioning/api-version';

type JsonSchema = Record<string, unknown>;

interface Components {
  schemas: Record<string, JsonSchema>;
}

/** zod -> JSON Schema 2020-12 (OpenAPI 3.1's dialect); schemas with a meta id become shared components. */
function toSchema(schema: z.ZodType, io: 'input' | 'output', components: Components): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    reused: 'inline',
  }) as JsonSchema;
  const defs = (json['$defs'] ?? {}) as Record<string, JsonSchema>;
  delete json['$defs'];
  delete json['$schema'];
  for (const [id, def] of Object.entries(defs))
    components.schemas[id] ??= withIntegerFormats(rewriteRefs(def)) as JsonSchema;
  const id = z.globalRegistry.get(schema)?.id;
  const rewritten = withIntegerFormats(rewriteRefs(json)) as JsonSchema;
  if (id) {
    components.schemas[id] ??= rewritten;
    return { $ref: `#/components/schemas/${id}` };
  }
  return rewritten;
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === '$ref' && typeof inner === 'string'
          ? inner.replace('#/$defs/', '#/components/schemas/')
          : rewriteRefs(inner),
      ]),
    );
  }
  return value;
}

/**
 * The form-encoded twin of a JSON body schema, as its own component (`<Id>Form`): generators key the media type on the
 * schema's type, so one component for both bodies made openapi-python-client send the form as JSON.
 */
function formSchemaOf(schema: JsonSchema, components: Components): JsonSchema {
  const ref = schema['$ref'];
  if (typeof ref !== 'string') return schema;
  const id = ref.replace('#/components/schemas/', '');
  const formId = `${id}Form`;
  const json = components.schemas[id];
  if (json) {
    components.schemas[formId] ??= {
      ...json,
      description: `${String(json['description'] ?? id)} Form-encoded (application/x-www-form-urlencoded).`,
    };
  }
  return { $ref: `#/components/schemas/${formId}` };
}

const INT32 = { min: -2_147_483_648, max: 2_147_483_647 };

/**
 * Names the storage format of every bounded integer (int32 when its range fits, else int64), so that generated clients
 * pick a wide enough type; the bounds themselves come from the zod schemas that validate.
 */
function withIntegerFormats(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withIntegerFormats);
  if (!value || typeof value !== 'object') return value;
  const schema = Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, withIntegerFormats(inner)]),
  );
  if (schema['type'] === 'integer' && schema['format'] === undefined) {
    const min = typeof schema['minimum'] === 'number' ? schema['minimum'] : -Infinity;
    const max = typeof schema['maximum'] === 'number' ? schema['maximum'] : Infinity;
    schema['format'] = min >= INT32.min && max <= INT32.max ? 'int32' : 'int64';
  }
  return schema;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed request',
  401: 'Authentication missing or failed',
  403: 'Authenticated but lacking permission or scope',
  404: 'Resource not found',
  405: 'Method not allowed on this path',
  408: 'The request did not arrive in time',
  304: 'Not modified: the `If-None-Match` tag still matches (no body)',
  409: 'Conflict with existing data',
  412: 'Precondition failed: the resource changed since the `If-Match` tag',
  413: 'Request body too large',
  415: 'Unsupported content type',
  422: 'Validation failed',
  428: 'Precondition required: this deployment (REQUIRE_IF_MATCH) wants `If-Match` on writes',
  429: 'Rate limit exceeded',
  431: 'Request headers too large',
  500: 'Unexpected server error',
  503: 'A dependency is temporarily unavailable',
  504: 'The outcome of the change is unknown',
};

/**
 * What a 409, 503 and 504 of an operation that changes something tell its client (ADR 0020): whether the change may
 * have happened, and how to retry without doing it twice.
 */
const WRITE_STATUS_TEXT: Record<number, string> = {
  409:
    'Conflict with existing data; or the resource is being changed by others right now (then with `Retry-After`, and nothing of this request was changed: retry after it)',
  503:
    'Nothing was changed and nothing will be: a dependency was unavailable, or the deadline passed before the change started. Retry after `Retry-After` seconds',
  504:
    'The change was sent but its outcome is not known (a dependency stopped answering in time); no `Retry-After`. Do not repeat the request blindly: read the resource first (its `version` and ETag tell whether the change is in), or repeat a POST with the same `Idempotency-Key`, which answers the real outcome once it is known (409 while it is not yet). Retrying a POST without a key may do it twice',
};

/** What each documented error status stands for, rendered by the one error renderer as the example body. */
const EXAMPLE_ERRORS: Record<number, () => AppError> = {
  400: () => new AppError('BAD_REQUEST', 'Malformed JSON body'),
  401: () => new AppError('UNAUTHENTICATED', 'Not authenticated'),
  403: () => new AppError('FORBIDDEN', 'Not enough permissions. Required: users:read'),
  404: () => new AppError('NOT_FOUND', 'User 7 not found', { resource: { type: 'User', id: '7' } }),
  409: () => new AppError('CONFLICT', 'Username already registered'),
  413: () => new AppError('PAYLOAD_TOO_LARGE', 'Request body too large'),
  415: () => new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'),
  422: () =>
    new AppError('BAD_USER_INPUT', 'Validation failed: username: must be at least 3 characters', {
      details: [{ field: 'username', message: 'must be at least 3 characters' }],
    }),
  412: () =>
    new AppError('PRECONDITION_FAILED', 'The resource has changed since that ETag; fetch it again and retry'),
  428: () =>
    new AppError(
      'PRECONDITION_REQUIRED',
      'If-Match is required: send the ETag of the version you are changing',
    ),
  429: () => new AppError('RATE_LIMITED', 'Rate limit exceeded'),
  500: () => new AppError('INTERNAL_SERVER_ERROR', 'Internal server error'),
  503: () => new AppError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable'),
  504: () => outcomeUnknown(),
};

const exampleError = (status: number, env: RestEnvironment): AppError => {
  if (status === env.VALIDATION_STATUS) return EXAMPLE_ERRORS[422]!();
  // A 422 where validation answers 400: only an Idempotency-Key reused with another body (always 422).
  if (status === 422)
    return new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request');
  if (status === env.LOGIN_FAILURE_STATUS && status === 400) return EXAMPLE_ERRORS[400]!();
  const make = EXAMPLE_ERRORS[status];
  if (make) return make();
  const code =
    (Object.keys(ERROR_CODES) as ErrorCode[]).find((c) => ERROR_CODES[c].status === status) ??
    'INTERNAL_SERVER_ERROR';
  return new AppError(code, STATUS_TEXT[status] ?? 'Error');
};

// Headers and version parameters are written inline, not as `$ref`s: some OpenAPI 3.1 validators (the 2021-04-15
// schema among them) accept only absolute URIs in a Reference Object.
const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description: "Correlation id: the caller's own when sane, else generated.",
    schema: { type: 'string', maxLength: 128, pattern: '^[\\x21-\\x7e]+$' },
  },
  'X-API-Version': {
    description: 'The API version that served the response.',
    schema: { type: 'string', enum: SUPPORTED_VERSIONS.map(String) },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 86_400 },
  },
  ETag: {
    description:
      'Entity tag of this representation: strong on a single resource (a versioned one: `"<version>.r<API version>"`; on a post `"<version>.l<like count>.r<API version>"`), weak (`W/`) on a listing. Send it back as `If-None-Match` (304 while unchanged) or, on a versioned resource, as `If-Match` to write only that version (412 otherwise).',
    schema: { type: 'string', maxLength: 80, pattern: '^(W/)?"[\\x21\\x23-\\x7e]*"$' },
  },
  'WWW-Authenticate': {
    description:
      'The scheme to authenticate with (RFC 9110 §15.5.2): `Bearer`, with `error="invalid_token"` when the bearer token sent was refused (RFC 6750).',
    schema: { type: 'string', enum: ['Bearer', 'Bearer error="invalid_token"'] },
  },
  Location: {
    description:
      "The created record's path (`/items/7`; `/v1/items/7` when the request named a version, by path, header, Accept, query or body); a GET of it as is answers the record, with this response's `ETag` when it has one.",
    schema: { type: 'string', maxLength: 200, pattern: '^(/v\\d+)?(/[a-z-]+/[1-9][0-9]{0,14})+$' },
  },
  Link: {
    description:
      'RFC 8288 links of a listing: `first`, `prev` where the style can go back, `next` when there is more; relative to this URL and consistent with the body (`nextPageToken`, `page`, `offset`, last id).',
    schema: { type: 'string', maxLength: 16_384 },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this response is the stored outcome of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Idempotency-Status': {
    description:
      '`unavailable`: the key could not be checked (Redis unreachable, IDEMPOTENCY_FAIL_MODE=open) and the request ran without the guarantee; `not-stored`: a credential-issuing route checks the key but stores no outcome.',
    schema: { type: 'string', enum: ['unavailable', 'not-stored'] },
  },
};
/** What caches may keep (http/cache-policy.ts): per answer kind, the one value it carries. */
const CACHE_HEADERS = {
  private: {
    description: `For this caller only (\`${PRIVATE_ANSWER}\`): a browser may keep it and revalidates it with its ETag before reuse (304 while unchanged); no shared cache (proxy, CDN) keeps it, whatever carries the credential.`,
    schema: { type: 'string', enum: [PRIVATE_ANSWER] },
  },
  noStore: {
    description: `Kept by no cache (\`${NO_STORE}\`): the answer carries a credential or a secret (with \`Pragma: no-cache\`), or is an error.`,
    schema: { type: 'string', enum: [NO_STORE] },
  },
  vary: {
    description: `What selects this answer besides the URL: \`Origin\`, \`X-API-Version\`, \`Accept\` and the credential headers ${CREDENTIAL_HEADERS.map((name) => `\`${name}\``).join(', ')} (an API key in \`api_key\` is in the URL). No content coding is applied: Accept-Encoding selects nothing.`,
    schema: { type: 'string', maxLength: 200 },
  },
};
const SECONDS = { type: 'integer', format: 'int32', minimum: 0, maximum: 2_147_483_647 } as const;
/** What the rate limiter adds to every response it counted (libs/rate-limit rateLimitHeaders). */
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed per window for this caller.', schema: SECONDS },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: SECONDS },
  'X-RateLimit-Reset': { description: 'Seconds until the window resets.', schema: SECONDS },
  RateLimit: {
    description: 'IETF draft RateLimit field: `"default";r=<remaining>;t=<seconds to reset>`.',
    schema: { type: 'string', maxLength: 100, pattern: '^"default";r=\\d+;t=\\d+$' },
  },
  'RateLimit-Policy': {
    description: 'IETF draft RateLimit-Policy field: `"default";q=<quota>;w=<window seconds>`.',
    schema: { type: 'string', maxLength: 100, pattern: '^"default";q=\\d+;w=\\d+$' },
  },
};
/** CORS headers: present only when the request's Origin is in the deployment's allowlist (CORS_ORIGINS). */
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': {
    description: 'The allowed origin (or `*`); absent when CORS_ORIGINS does not allow the Origin.',
    schema: { type: 'string', maxLength: 2048 },
  },
  'Access-Control-Expose-Headers': {
    description: 'Response headers a browser may read; with Access-Control-Allow-Origin only.',
    schema: { type: 'string', maxLength: 1024 },
  },
};
/** Headers every response carries (rate-limit and CORS headers when they apply). */
const COMMON_RESPONSE_HEADERS = {
  'X-Request-Id': RESPONSE_HEADERS['X-Request-Id'],
  'X-API-Version': RESPONSE_HEADERS['X-API-Version'],
  ...RATE_LIMIT_HEADERS,
  ...CORS_HEADERS,
};

const SCOPE_DESCRIPTIONS: Record<(typeof ALL_SCOPES)[number], string> = {
  'users:read': 'Read user information',
  'users:write': 'Modify user information',
  'items:read': 'Read items',
  'items:write': 'Create or modify items',
  'posts:read': 'Read posts, comments and likes',
  'posts:write': 'Create or modify posts and comments, like posts',
};

const VERSION_PARAMETERS = [
  {
    name: 'X-API-Version',
    in: 'header',
    required: false,
    description: 'API version: one of these spellings; anything else is 400. The path prefix wins over it.',
    schema: { type: 'string', enum: [...VERSION_SPELLINGS] },
    example: '2',
  },
  {
    name: 'version',
    in: 'query',
    required: false,
    description:
      'API version: one of these spellings; anything else is 400. The path prefix, `X-API-Version` and `Accept` win over it.',
    schema: { type: 'string', enum: [...VERSION_SPELLINGS] },
    example: '2',
  },
];

const IDEMPOTENCY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the first outcome (status, body, Location/ETag/Content-Type/X-API-Version) is kept 24 h per account (the user or API key behind the credential, never its username) and key, and a retry with the same key and request replays it (`Idempotent-Replayed: true`) to a credential that may still make the request (a token refused since, e.g. of a deactivated user: 401; one without the scope: 403, as a fresh request); the same request is the same method, URL, body (whatever the order of its members) and representation (API version, problem details). The same key with another request is 422; while the first still runs, 409 + Retry-After. 5xx, 401, 403 and 412 outcomes are not kept (a retry runs again). 1-255 printable ASCII characters (otherwise the validation status).',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
  example: '4f1c7e0a-9a51-4c3e-8d0b-2b9f6f1d7c10',
};
const IF_NONE_MATCH_PARAMETER = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'Entity tags from earlier responses, comma-separated (or `*`): 304 without a body while one still matches (weak comparison). Anything else is 400.',
  schema: { type: 'string', ...IF_NONE_MATCH_FORM },
};
const IF_MATCH_PARAMETER = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'The strong ETag of the version being changed: the write happens only if the resource is still at it (412 otherwise, also for a weak tag or one this server never issued), atomically under concurrent writers. `*`: no version check. One tag only; several, or anything else, is 400. Required (428) on PUT, PATCH and DELETE when the deployment sets REQUIRE_IF_MATCH.',
  schema: { type: 'string', ...IF_MATCH_FORM },
  example: '"3.r2"',
};
/** RFC 9110 §13.1.2 on a write: `*` = "only if there is none"; a write never creates a record, so 412 when it exists. */
const IF_NONE_MATCH_WRITE_PARAMETER = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    '`*`: only if the record does not exist. A write never creates one, so the answer is 412 for an existing record and 404 for a missing one, and nothing changes. Other values are refused (400): use If-Match to write a known version.',
  schema: { type: 'string', enum: ['*'] },
};

export function buildOpenApiDocument(routes: readonly RouteDefinition[], env: RestEnvironment): JsonSchema {
  const components: Components = { schemas: {} };
  const errorRef = toSchema(errorResponseSchema(env.ERROR_FORMAT), 'output', components);
  const problemRef = toSchema(ProblemDetails, 'output', components);
  const errorResponse = (status: number, mutation = false): Record<string, unknown> => {
    const exampleIn = (format: typeof env.ERROR_FORMAT) =>
      renderError(exampleError(status, env), {
        format,
        validationStatus: env.VALIDATION_STATUS,
        loginFailureStatus: env.LOGIN_FAILURE_STATUS,
        correlationId: '0b5e2d6c-6a4f-4d0e-9f51-8a7f2c1d3e4b',
        instance: '/users/7',
      }).body;
    const headers: Record<string, unknown> = { ...COMMON_RESPONSE_HEADERS, 'Cache-Control': CACHE_HEADERS.noStore };
    if (status === 429 || status === 503 || (mutation && status === 409))
      headers['Retry-After'] = RESPONSE_HEADERS['Retry-After'];
    if (status === 401) headers['WWW-Authenticate'] = RESPONSE_HEADERS['WWW-Authenticate'];
    // Problem details answer `Accept: application/problem+json` on every deployment, and every request on a
    // `problem` one (then there is no plain JSON error to list).
    const problem = { [PROBLEM_MEDIA_TYPE]: { schema: problemRef, example: exampleIn('problem') } };
    return {
      description: (mutation ? WRITE_STATUS_TEXT[status] : undefined) ?? STATUS_TEXT[status] ?? 'Error',
      headers,
      content:
        env.ERROR_FORMAT === 'problem'
          ? problem
          : { 'application/json': { schema: errorRef, example: exampleIn(env.ERROR_FORMAT) }, ...problem },
    };
  };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const openApiPath = route.path.replace(/:(\w+)/g, '{$1}');
    const parameters: JsonSchema[] = [];
    for (const [location, schema] of [
      ['path', route.params],
      ['query', route.documentedQuery?.(env) ?? route.query],
    ] as const) {
      if (!schema) continue;
      const json = toSchema(schema, 'input', components) as {
        properties?: Record<string, JsonSchema>;
        required?: string[];
      };
      const groups =
        location === 'query'
          ? listingParameterGroups(json.properties ?? {})
          : { separate: json.properties ?? {}, combined: undefined };
      if (groups.combined) {
        parameters.push({
          name: LISTING_PARAMETER,
          in: 'query',
          required: false,
          description: groups.combined['description'],
          style: 'form',
          explode: true,
          schema: groups.combined,
        });
      }
      for (const [name, property] of Object.entries(groups.separate)) {
        parameters.push({
          name,
          in: location,
          required: location === 'path' || (json.required ?? []).includes(name),
          ...(typeof property['description'] === 'string' ? { description: property['description'] } : {}),
          schema: property,
          ...(property['type'] === 'array' ? { style: 'form', explode: true } : {}),
          ...(location === 'path' ? { example: exampleFromSchema(property, components.schemas) } : {}),
        });
      }
    }
    parameters.push(...VERSION_PARAMETERS);
    const writes = route.method === 'put' || route.method === 'patch' || route.method === 'delete';
    // A versioned record's writes and actions (POST on it) take preconditions.
    const conditional = route.versioned === true && route.method !== 'get';
    if (route.method === 'post') parameters.push(IDEMPOTENCY_PARAMETER);
    if (route.method === 'get') parameters.push(IF_NONE_MATCH_PARAMETER);
    if (conditional) parameters.push(IF_MATCH_PARAMETER, IF_NONE_MATCH_WRITE_PARAMETER);
    const successHeaders: Record<string, unknown> = {
      ...COMMON_RESPONSE_HEADERS,
      'Cache-Control': route.carriesSecret ? CACHE_HEADERS.noStore : CACHE_HEADERS.private,
      Vary: CACHE_HEADERS.vary,
    };
    if (
      route.method === 'get' ||
      (route.versioned && route.method !== 'delete') ||
      route.createsVersioned
    )
      successHeaders['ETag'] = RESPONSE_HEADERS.ETag;
    if (route.listing) successHeaders['Link'] = RESPONSE_HEADERS.Link;
    if (route.method === 'post') {
      successHeaders['Idempotent-Replayed'] = RESPONSE_HEADERS['Idempotent-Replayed'];
      successHeaders['Idempotency-Status'] = RESPONSE_HEADERS['Idempotency-Status'];
    }
    const responses: Record<string, unknown> = {};
    // Every operation but a read runs a mutation: its 503 promises nothing changed, its 504 says the outcome is unknown.
    const mutation = route.method !== 'get';
    for (const [status, spec] of Object.entries(route.responses)) {
      const code = Number(status);
      if (code >= 400) {
        responses[status] = { ...errorResponse(code, mutation), description: spec.description };
        continue;
      }
      let content: Record<string, unknown> | undefined;
      if (spec.schema) {
        const schema = toSchema(spec.schema, 'output', components);
        const declared = z.globalRegistry.get(spec.schema)?.['example'];
        content = {
          'application/json': { schema, example: declared ?? exampleFromSchema(schema, components.schemas) },
        };
      }
      responses[status] = {
        description: spec.description,
        headers: code === 201 ? { ...successHeaders, Location: RESPONSE_HEADERS.Location } : successHeaders,
        ...(content ? { content } : {}),
      };
    }
    if (route.method === 'get')
      responses['304'] = {
        description: `${STATUS_TEXT[304]}; it carries the ETag, Cache-Control and Vary the 200 would`,
        headers: {
          ...COMMON_RESPONSE_HEADERS,
          ETag: RESPONSE_HEADERS.ETag,
          'Cache-Control': CACHE_HEADERS.private,
          Vary: CACHE_HEADERS.vary,
        },
      };
    // Every operation can meet these: an unknown version or malformed request (400), a credential outside its alphabet
    // (401, public routes too: credentials are checked before anything else, docs/interface.md#credentials), limits and
    // dependencies.
    const errorStatuses = new Set<number>([400, 401, 429, 500, 503]);
    if (route.security !== 'public') errorStatuses.add(403);
    // A read refuses a query parameter it does not declare (register-routes.ts), so every GET can meet validation.
    if (route.body || route.query || route.params || route.method === 'get') errorStatuses.add(env.VALIDATION_STATUS);
    if (route.body) [413, 415].forEach((s) => errorStatuses.add(s));
    if (route.params) errorStatuses.add(404);
    // Idempotency-Key: in progress (409), reused with another request (422), store down in closed mode (503).
    if (route.method === 'post') [409, 422].forEach((s) => errorStatuses.add(s));
    // A create: `If-Match` (other than `*`) and `If-None-Match: *` cannot hold for its collection.
    if (conditional || route.createsVersioned) errorStatuses.add(412);
    if (conditional && writes) errorStatuses.add(428);
    // A versioned record's writes: others changing it until the deadline (409 + Retry-After); any write: 504.
    if (conditional) errorStatuses.add(409);
    if (mutation) errorStatuses.add(504);
    for (const status of errorStatuses) responses[String(status)] ??= errorResponse(status, mutation);
    // Node's HTTP parser answers before any route when the request line and headers exceed its limit (431), or a
    // request does not arrive within REQUEST_TIMEOUT_MS (408): in the deployment's error format, since the request's
    // Accept was never read.
    for (const [status, why] of [
      [431, 'Request line and headers together larger than the server accepts (16 KiB)'],
      [408, 'The request did not arrive within REQUEST_TIMEOUT_MS'],
    ] as const) {
      const parsed = errorResponse(status);
      responses[String(status)] ??= {
        description: `${why}; answered by the HTTP server before any route, in the deployment's error format (the request's headers, Accept included, are not read)`,
        content:
          env.ERROR_FORMAT === 'problem'
            ? parsed['content']
            : { 'application/json': (parsed['content'] as Record<string, unknown>)['application/json'] },
      };
    }
    // The OAuth2 password flow is the same bearer token, obtained by Swagger UI's Authorize dialog from /token.
    const bearer = [{ bearerAuth: [] }, { oauth2Password: route.scope ? [route.scope] : [] }];
    const security =
      route.security === 'public'
        ? []
        : route.security === 'bearer'
          ? bearer
          : [...bearer, { apiKeyHeader: [] }, { apiKeyQuery: [] }, { apiKeyCookie: [] }];
    const operation: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: route.tags,
      security,
      parameters,
      responses,
      ...(route.scope ? { 'x-required-scope': route.scope } : {}),
    };
    if (route.body) {
      const schema = toSchema(route.body, 'input', components);
      const declared = z.globalRegistry.get(route.body)?.['example'];
      const example = declared ?? exampleFromSchema(schema, components.schemas);
      const content: Record<string, unknown> = {};
      for (const type of route.bodyTypes ?? ['json']) {
        if (type === 'json') content['application/json'] = { schema, example };
        else
          content['application/x-www-form-urlencoded'] = {
            schema: formSchemaOf(schema, components),
            example,
          };
      }
      const acceptsJson = (route.bodyTypes ?? ['json']).includes('json');
      operation['requestBody'] = {
        required: true,
        ...(acceptsJson
          ? {
              description:
                'A JSON body may also be wrapped as `{"version": 2, "data": <body>}` to name the API version.',
            }
          : {}),
        content,
      };
    }
    (paths[openApiPath] ??= {})[route.method] = operation;
  }
  const deprecated = API_VERSIONS[1];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Users and Items API',
      version: API_VERSIONS[CURRENT_VERSION].semver,
      description: [
        'Resource-oriented JSON API for users, items, posts and tokens.',
        `Errors use the deployment-wide shape configured by ERROR_FORMAT (this deployment: \`${env.ERROR_FORMAT}\`);`,
        'a request whose `Accept` prefers `application/problem+json` gets RFC 9457 problem details instead, on any deployment.',
        'Versions: every path is also served under `/v1` and `/v2`; the version may instead be named by the',
        '`X-API-Version` header (`2` or `2.0.0`), `Accept: application/vnd.api+json;version=2`, the `version` query',
        'parameter or a body `{"version": 2, "data": {...}}`, in that precedence after the path. Unversioned requests get',
        `the current representation. A method a path does not have is 405 with an \`Allow\` header listing the ones it has. v1 is deprecated (sunset ${deprecated.sunsetAt ?? 'to be announced'}); see ${MIGRATION_NOTE_PATH}.`,
      ].join(' '),
    },
    // Relative URLs: each deployment (local, staging, production) serves this document from its own origin.
    servers: [
      {
        url: '/',
        description:
          'Current representation (X-API-Version: 2) on the deployment serving this document (local, staging or production)',
        'x-internal': false,
      },
      {
        url: '/v2',
        description: 'Version 2 on the deployment serving this document (local, staging or production)',
        'x-internal': false,
      },
      {
        url: '/v1',
        description: `Version 1 on the deployment serving this document (local, staging or production); deprecated, sunset ${deprecated.sunsetAt ?? 'to be announced'}`,
        'x-internal': false,
      },
    ],
    paths,
    components: {
      schemas: components.schemas,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'Access token from POST /token: a JWT (HS256, `exp` always set and checked, algorithm fixed by the server) following RFC8725, JSON Web Token Best Current Practices.',
        },
        // FastAPI's OAuth2PasswordBearer: /docs' Authorize button takes a username and password, posts them to
        // tokenUrl (relative: resolved against the server Swagger UI has selected) and sends the token on every call.
        oauth2Password: {
          type: 'oauth2',
          description:
            'OAuth2 password flow on POST /token (form `username`, `password`, optional `scope`), refreshed on POST /auth/refresh: the same access token as bearerAuth, a JWT (HS256, `exp` always set and checked, algorithm fixed by the server) following RFC8725, JSON Web Token Best Current Practices.',
          flows: {
            password: {
              tokenUrl: '/token',
              refreshUrl: '/auth/refresh',
              scopes: Object.fromEntries(ALL_SCOPES.map((scope) => [scope, SCOPE_DESCRIPTIONS[scope]])),
            },
          },
        },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
        apiKeyCookie: { type: 'apiKey', in: 'cookie', name: 'api_key' },
      },
    },
  };
}
