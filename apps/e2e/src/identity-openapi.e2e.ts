/** The OpenAPI document describes every users and auth operation with its schemas and security. */
import { http } from '@platform/testing';
import { rest } from './test/identity-support';

type Operation = {
  operationId: string;
  security: Array<Record<string, string[]>>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
};

describe('identity: OpenAPI', () => {
  let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; scheme?: string; in?: string }> } };

  beforeAll(async () => {
    const response = await http.get(rest('/openapi.json'));
    expect(response.status).toBe(200);
    doc = response.body;
  });

  it('when the document is read, then it declares the bearer and the API-key security schemes', () => {
    expect(doc.components.securitySchemes['bearerAuth']).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes['apiKeyHeader']).toMatchObject({ type: 'apiKey', in: 'header' });
  });

  it.each([
    ['/users/', 'post', 'UserCreate', 201, 'public'],
    ['/users/', 'get', null, 200, 'bearer'],
    ['/users/me', 'get', null, 200, 'bearer'],
    ['/users/{user_id}', 'get', null, 200, 'bearer'],
    ['/users/{user_id}', 'put', 'UserReplace', 200, 'bearer'],
    ['/users/{user_id}', 'patch', 'UserUpdate', 200, 'bearer'],
    ['/users/{user_id}', 'delete', null, 204, 'bearer'],
    ['/users/{user_id}/activate', 'post', null, 200, 'bearer'],
    ['/users/{user_id}/deactivate', 'post', null, 200, 'bearer'],
    ['/users/{user_id}/reset-password', 'post', 'ResetPassword', 200, 'bearer'],
    ['/token', 'post', 'TokenRequest', 200, 'public'],
    ['/auth/token', 'post', 'TokenRequest', 200, 'public'],
    ['/auth/refresh', 'post', 'RefreshTokenRequest', 200, 'public'],
    ['/auth/logout', 'post', 'RefreshTokenRequest', 204, 'public'],
  ] as const)('when %s %s is looked up, then it has its request schema, success response and security', (path, method, body, status, security) => {
    const operation = doc.paths[path]?.[method];
    expect(operation).toBeDefined();
    if (body) {
      const content = operation!.requestBody!.content;
      expect(content['application/json']!.schema).toEqual({ $ref: `#/components/schemas/${body}` });
      expect(doc.components.schemas[body]).toBeDefined();
    } else {
      expect(operation!.requestBody).toBeUndefined();
    }
    expect(operation!.responses[String(status)]).toBeDefined();
    if (status !== 204) expect(operation!.responses[String(status)]!.content!['application/json']!.schema).toBeDefined();
    if (security === 'public') expect(operation!.security).toEqual([]);
    else expect(operation!.security).toEqual(expect.arrayContaining([{ bearerAuth: [] }]));
    expect(operation!.responses['500']).toBeDefined();
  });

  it('when the token endpoints are looked up, then they accept form-encoded and JSON bodies', () => {
    for (const path of ['/token', '/auth/token']) {
      expect(Object.keys(doc.paths[path]!['post']!.requestBody!.content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    }
  });

  it('when the update schemas are read, then they refuse unknown fields (mass assignment) and never show a password in a User', () => {
    expect(doc.components.schemas['UserUpdate']).toMatchObject({ additionalProperties: false });
    expect(doc.components.schemas['UserReplace']).toMatchObject({ additionalProperties: false });
    const user = doc.components.schemas['User'] as { properties: Record<string, unknown>; additionalProperties: boolean };
    expect(Object.keys(user.properties).sort()).toEqual(['email', 'full_name', 'id', 'is_active', 'role', 'username']);
  });
});
