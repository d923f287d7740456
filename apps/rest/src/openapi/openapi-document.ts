/** Generates the OpenAPI 3.1 document from the route declarations: the schemas that validate are the schemas shown. */
import { z } from 'zod';
import type { RouteDefinition } from '../http/route';
import { errorResponseSchema } from './error-schemas';
import type { RestEnvironment } from '../environment';

type JsonSchema = Record<string, unknown>;

interface Components {
  schemas: Record<string, JsonSchema>;
}

/** zod -> JSON Schema 2020-12 (OpenAPI 3.1's dialect); schemas with a meta id become shared components. */
function toSchema(schema: z.ZodType, io: 'input' | 'output', components: Components): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema;
  const defs = (json['$defs'] ?? {}) as Record<string, JsonSchema>;
  delete json['$defs'];
  delete json['$schema'];
  for (const [id, def] of Object.entries(defs)) components.schemas[id] ??= rewriteRefs(def) as JsonSchema;
  const id = z.globalRegistry.get(schema)?.id;
  const rewritten = rewriteRefs(json) as JsonSchema;
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
        key === '$ref' && typeof inner === 'string' ? inner.replace('#/$defs/', '#/components/schemas/') : rewriteRefs(inner),
      ]),
    );
  }
  return value;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed request',
  401: 'Authentication missing or failed',
  403: 'Authenticated but lacking permission or scope',
  404: 'Resource not found',
  405: 'Method not allowed on this path',
  409: 'Conflict with existing data',
  413: 'Request body too large',
  415: 'Unsupported content type',
  422: 'Validation failed',
  429: 'Rate limit exceeded',
  500: 'Unexpected server error',
  503: 'A dependency is temporarily unavailable',
};

export function buildOpenApiDocument(routes: readonly RouteDefinition[], env: RestEnvironment): JsonSchema {
  const components: Components = { schemas: {} };
  const errorRef = toSchema(errorResponseSchema(env.ERROR_FORMAT), 'output', components);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const openApiPath = route.path.replace(/:(\w+)/g, '{$1}');
    const parameters: JsonSchema[] = [];
    for (const [location, schema] of [
      ['path', route.params],
      ['query', route.query],
    ] as const) {
      if (!schema) continue;
      const json = toSchema(schema, 'input', components) as { properties?: Record<string, JsonSchema>; required?: string[] };
      for (const [name, property] of Object.entries(json.properties ?? {})) {
        parameters.push({
          name,
          in: location,
          required: location === 'path' || (json.required ?? []).includes(name),
          ...(typeof property['description'] === 'string' ? { description: property['description'] } : {}),
          schema: property,
          ...(property['type'] === 'array' ? { style: 'form', explode: true } : {}),
        });
      }
    }
    const responses: Record<string, unknown> = {};
    for (const [status, spec] of Object.entries(route.responses)) {
      responses[status] = {
        description: spec.description,
        ...(spec.schema ? { content: { 'application/json': { schema: toSchema(spec.schema, 'output', components) } } } : {}),
      };
    }
    const errorStatuses = new Set<number>([500, 503, 429]);
    if (route.security !== 'public') [401, 403].forEach((s) => errorStatuses.add(s));
    if (route.body || route.query || route.params) errorStatuses.add(env.VALIDATION_STATUS);
    if (route.body) [400, 413, 415].forEach((s) => errorStatuses.add(s));
    if (route.params) errorStatuses.add(404);
    for (const status of errorStatuses) {
      responses[String(status)] ??= {
        description: STATUS_TEXT[status] ?? 'Error',
        content: { 'application/json': { schema: errorRef } },
      };
    }
    const security =
      route.security === 'public'
        ? []
        : route.security === 'bearer'
          ? [{ bearerAuth: [] }]
          : [{ bearerAuth: [] }, { apiKeyHeader: [] }, { apiKeyQuery: [] }, { apiKeyCookie: [] }];
    const operation: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: route.tags,
      security,
      ...(parameters.length ? { parameters } : {}),
      responses,
      ...(route.scope ? { 'x-required-scope': route.scope } : {}),
    };
    if (route.body) {
      const schema = toSchema(route.body, 'input', components);
      const content: Record<string, unknown> = {};
      for (const type of route.bodyTypes ?? ['json']) {
        const mediaType = type === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
        const example = z.globalRegistry.get(route.body)?.['example'];
        content[mediaType] = { schema, ...(example !== undefined ? { example } : {}) };
      }
      operation['requestBody'] = { required: true, content };
    }
    (paths[openApiPath] ??= {})[route.method] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Users and Items API',
      version: '2.0.0',
      description:
        'Resource-oriented JSON API for users, items, posts and tokens. Errors use the deployment-wide shape configured by ERROR_FORMAT.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: components.schemas,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
        apiKeyCookie: { type: 'apiKey', in: 'cookie', name: 'api_key' },
      },
    },
  };
}
