/**
 * The OpenAPI document describes exactly what the facade does (issue 14, findings 8 and 9): the version parameters are
 * the closed set the server accepts, the listing styles that exclude each other are one `oneOf` a generator honours,
 * no parameter whose presence selects a style has a default, the versioned list bodies match the response schema,
 * offsets are bounded where GraphQL's Int ends, scopes are an enum and the token form has a schema of its own.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ALL_SCOPES } from '@platform/auth';
import { LISTINGS, parseRestListQuery, STYLE_PARAMETERS } from '@platform/listing';
import { AppError } from '@platform/errors';
import { buildOpenApiDocument } from '../src/openapi/openapi-document';
import { loadRestEnvironment } from '../src/environment';
import { allRoutes } from '../src/routes';
import { parseApiVersion } from '../src/versioning/api-version';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walks arbitrary JSON documents
type Json = Record<string, any>;

const documentFor = (settings: Record<string, string> = {}) =>
  buildOpenApiDocument(
    allRoutes,
    loadRestEnvironment({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(48), ...settings }),
  ) as Json;

/** A validator for one schema of the document, its `$ref`s resolved against the document's components. */
function validatorFor(document: Json, schema: Json): (value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'doc', components: document['components'] });
  const rewrite = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(rewrite)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value).map(([key, inner]) => [
              key,
              key === '$ref' && typeof inner === 'string' ? `doc${inner}` : rewrite(inner),
            ]),
          )
        : value;
  const validate = ajv.compile(rewrite(schema) as Json);
  return (value) => validate(value) as boolean;
}

const operations = (document: Json) =>
  Object.entries(document['paths'] as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })),
  );

const listingParameter = (document: Json, path: string) =>
  (document['paths'][path].get.parameters as Json[]).find((p) => p['name'] === 'listing');

const fieldOf = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.details?.[0]?.field : String(error);
  }
};

describe('OpenAPI document: what the server does', () => {
  const document = documentFor();

  it('when the version parameters are read, then they list exactly the spellings the server accepts', () => {
    for (const { op } of operations(document)) {
      const version = (op['parameters'] as Json[]).filter((p) => ['version', 'X-API-Version'].includes(p['name']));
      expect(version).toHaveLength(2);
      for (const parameter of version) {
        const spellings = parameter['schema'].enum as string[];
        expect(spellings.sort()).toEqual(['1', '1.0', '1.0.0', '2', '2.0', '2.0.0', 'v1', 'v1.0', 'v1.0.0', 'v2', 'v2.0', 'v2.0.0']);
        for (const spelling of spellings) expect(parseApiVersion(spelling)).toBeDefined();
      }
    }
    // What Schemathesis found schema-valid but refused, and what the server accepted beyond a closed set.
    for (const outside of ['878.1.32', 'v5', ' 2', '02', 'V2', '2.00', '2.0.0.0']) expect(parseApiVersion(outside)).toBeUndefined();
  });

  it('when any parameter is read, then none whose presence selects a listing style has a default', () => {
    const selectors = new Set(Object.values(STYLE_PARAMETERS).flat());
    const defaults: string[] = [];
    const visit = (where: string, schema: unknown): void => {
      if (!schema || typeof schema !== 'object') return;
      for (const [key, inner] of Object.entries(schema as Json)) {
        if (key === 'properties') {
          for (const [name, property] of Object.entries(inner as Json)) {
            if (selectors.has(name) && (property as Json)['default'] !== undefined) defaults.push(`${where} ${name}`);
            visit(where, property);
          }
        } else visit(where, inner);
      }
    };
    for (const { path, method, op } of operations(document)) {
      for (const parameter of op['parameters'] as Json[]) {
        if (selectors.has(parameter['name']) && parameter['schema']['default'] !== undefined)
          defaults.push(`${method} ${path} ${parameter['name']}`);
        visit(`${method} ${path}`, parameter['schema']);
      }
    }
    expect(defaults).toEqual([]);
  });

  it.each(['/users/', '/items/', '/posts', '/posts/{id}/comments', '/users/{id}/articles'])(
    'when the listing parameters of %s are validated, then exactly the combinations the server accepts are valid',
    (path) => {
      const parameter = listingParameter(document, path)!;
      expect(parameter).toMatchObject({ in: 'query', style: 'form', explode: true, required: false });
      const valid = validatorFor(document, parameter['schema']);
      const spec = path === '/users/' ? LISTINGS.users : path === '/items/' ? LISTINGS.items : path === '/posts' ? LISTINGS.posts : path.endsWith('comments') ? LISTINGS.comments : { ...LISTINGS.posts, fields: LISTINGS.posts.fields.filter((f) => f.rest !== 'author_id') };
      const cases: Array<Record<string, unknown>> = [
        {},
        { limit: 5 },
        { offset: 3, limit: 5 },
        { skip: 3 },
        { page: 2 },
        { page: 2, size: 5, sort: ['-id'] },
        { pageSize: 5 },
        { lastSeenId: 3, limit: 2 },
        { lastSeenId: 3, sort: ['id'] },
        { lastSeenId: 3, sort: ['-id'] },
        { page: 1, pageSize: 5 },
        { offset: 1, skip: 2 },
        { size: 5, limit: 5 },
        { lastSeenId: 1, offset: 1 },
        { sort: ['id', '-id'] },
        { offset: 2_147_483_647 },
        { offset: 2_147_483_648 },
        { skip: 2_147_483_648 },
      ];
      for (const query of cases) {
        const asStrings = Object.fromEntries(
          Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? v.map(String) : String(v)]),
        );
        const accepted = fieldOf(() => parseRestListQuery(asStrings, spec)) === undefined;
        expect({ query, valid: valid(query) }).toEqual({ query, valid: accepted });
      }
    },
  );

  it('when the users list deployment is pinned to page/size, then its parameters stay separate', () => {
    const pinned = documentFor({ USERS_LIST_STYLE: 'page' });
    const names = (pinned['paths']['/users/'].get.parameters as Json[]).map((p) => p['name']);
    expect(names).toEqual(expect.arrayContaining(['page', 'size', 'sort']));
    expect(names).not.toContain('listing');
  });

  it('when offset or skip is beyond a 32-bit integer, then the parser names the field (no GraphQL Int error later)', () => {
    expect(fieldOf(() => parseRestListQuery({ offset: '2147483648' }, LISTINGS.items))).toBe('offset');
    expect(fieldOf(() => parseRestListQuery({ skip: '99999999999' }, LISTINGS.items))).toBe('skip');
    expect(parseRestListQuery({ offset: '2147483647' }, LISTINGS.items).pagination).toMatchObject({ offset: 2147483647 });
  });

  it('when GET /users/ answers in any version and style, then the body matches the declared 200 schema', () => {
    const schema = document['paths']['/users/'].get.responses['200'].content['application/json'].schema;
    const valid = validatorFor(document, schema);
    const user = { id: 1, username: 'alice', email: 'alice@example.com', full_name: null, is_active: true, role: 'member' };
    const v2 = { id: 1, name: 'alice', email: 'alice@example.com' };
    const v1 = { id: 1, name: 'alice' };
    const pagination = { nextPageToken: null, totalCount: 1, pageSize: 20 };
    for (const record of [user, v2, v1]) {
      expect(valid([record])).toBe(true);
      expect(valid({ data: [record], pagination })).toBe(true);
      expect(valid({ items: [record], total: 1, page: 1, size: 10 })).toBe(true);
    }
    // `{id}` alone is what `fields=id` answers (ADR 0027); a record without its id never is.
    expect(valid({ data: [{ id: 1 }], pagination })).toBe(true);
    expect(valid({ data: [{ name: 'alice' }], pagination })).toBe(false);
    expect(valid({ data: [{ id: 1, name: 'alice', items: [{ id: 2, price: 'free' }] }], pagination })).toBe(false);
  });

  it('when the token endpoints are read, then the form body has its own schema and scopes are enumerated', () => {
    for (const path of ['/token', '/auth/token']) {
      const content = document['paths'][path].post.requestBody.content;
      expect(content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TokenRequest' });
      expect(content['application/x-www-form-urlencoded'].schema).toEqual({ $ref: '#/components/schemas/TokenRequestForm' });
    }
    const schemas = document['components'].schemas as Json;
    expect(schemas['TokenRequestForm'].properties).toEqual(schemas['TokenRequest'].properties);
    // Every input string also carries the NUL/surrogate pattern, so the scope pattern may sit in an allOf beside it.
    const scope = schemas['TokenRequest'].properties.scope as { pattern?: string; allOf?: Array<{ pattern?: string }> };
    const scopePatterns = [scope.pattern, ...(scope.allOf ?? []).map((part) => part.pattern)].filter(Boolean);
    expect(scopePatterns.some((pattern) => pattern!.includes('users:read'))).toBe(true);
    expect(schemas['ApiKeyCreate'].properties.scopes.items.enum).toEqual([...ALL_SCOPES]);
  });
});
