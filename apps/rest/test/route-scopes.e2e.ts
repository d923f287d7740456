/**
 * A route's declared `scope` (http/route.ts; OpenAPI shows it) is what the stack enforces (issue 15, item 2): the
 * subgraphs check scopes, the facade never does, so this walks every declaration and calls it over the real stack,
 * once with a token holding every scope but the declared one (403), once with a token holding only it (never 401/403).
 * A route that declares no scope but needs a credential is called with a token of one unrelated scope (never 403).
 * Admin tokens, narrowed with `scope` at login, keep ownership out of the picture; bodies are each schema's example.
 */
import { z } from 'zod';
import { ALL_SCOPES } from '@platform/auth';
import { unique, http, testStack, type HttpResponse } from '@platform/testing';
import { allRoutes } from '../src/routes';
import type { RouteDefinition } from '../src/http/route';

jest.setTimeout(300_000);

const stack = testStack();
const ADMIN = { username: 'admin', password: 'admin-password-1' };

const tokens = new Map<string, Promise<string>>();
/** The bootstrap admin's token narrowed to `scopes` (one login per distinct set). */
function adminWith(scopes: readonly string[]): Promise<string> {
  const scope = [...scopes].sort().join(' ');
  if (!tokens.has(scope)) {
    tokens.set(
      scope,
      http
        .post(`${stack.restUrl}/token`, { form: { ...ADMIN, scope } })
        .then((response) => response.body.access_token as string),
    );
  }
  return tokens.get(scope)!;
}

interface Fixture {
  adminId: number;
  userId: number;
  itemId: number;
  postId: number;
  commentId: number;
  keyId: number;
}

/** Fresh records for one call, so a call that deletes or changes something leaves the next one unaffected. */
async function fixture(): Promise<Fixture> {
  const token = await adminWith(ALL_SCOPES);
  const call = async (method: 'get' | 'post', path: string, json?: unknown): Promise<number> => {
    const response = await http[method](`${stack.restUrl}${path}`, { token, ...(json ? { json } : {}) });
    expect(response.status).toBeLessThan(300);
    return response.body.id as number;
  };
  const username = `scoped${unique()}`;
  const userId = (
    await http.post(`${stack.restUrl}/users/`, {
      // The password ResetPassword's example gives as current_password, so that example resets it for real.
      json: { username, email: `${username}@example.com`, password: 'correct-horse-1' },
    })
  ).body.id as number;
  const postId = await call('post', '/posts', { title: 'Scoped', body: 'Scoped post' });
  return {
    adminId: await call('get', '/users/me'),
    userId,
    itemId: await call('post', '/items/', { name: `scoped-${unique()}`, price: 1 }),
    postId,
    commentId: await call('post', `/posts/${postId}/comments`, { body: 'Scoped comment' }),
    keyId: await call('post', '/api-keys', { name: 'scoped', scopes: ['items:read'] }),
  };
}

/** The route's path with the fixture's ids in it (`:id` is the user under /users, the post under /posts). */
function pathOf(route: RouteDefinition, f: Fixture): string {
  return route.path
    .replace(/^\/users\/:id\//, `/users/${f.adminId}/`)
    .replace(':user_id', String(f.userId))
    .replace(':item_id', String(f.itemId))
    .replace(':article_id', String(f.postId))
    .replace(':comment_id', String(f.commentId))
    .replace(':key_id', String(f.keyId))
    .replace(':id', String(f.postId));
}

async function callRoute(route: RouteDefinition, scopes: readonly string[]): Promise<HttpResponse> {
  const f = await fixture();
  const example = route.body ? z.globalRegistry.get(route.body)?.['example'] : undefined;
  if (route.body) expect({ route: route.operationId, example }).toEqual({ route: route.operationId, example: expect.anything() });
  const response = await http[route.method](`${stack.restUrl}${pathOf(route, f)}`, {
    token: await adminWith(scopes),
    ...(example === undefined ? {} : { json: example }),
  });
  expect(response.status).toBeLessThan(500);
  return response;
}

const scoped = allRoutes.filter((route) => route.scope !== undefined);
const unscoped = allRoutes.filter((route) => route.scope === undefined && route.security !== 'public');

describe('declared route scopes', () => {
  it('when the routes are listed, then every route that needs a credential is walked below', () => {
    expect(scoped.length + unscoped.length).toBe(allRoutes.filter((r) => r.security !== 'public').length);
    expect(scoped.length).toBeGreaterThan(20);
  });

  it.each(scoped.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))(
    'when %s is called without its declared scope, then 403; with only that scope, not refused',
    async (_name, route) => {
      const without = await callRoute(route, ALL_SCOPES.filter((s) => s !== route.scope));
      expect({ route: route.operationId, status: without.status }).toEqual({ route: route.operationId, status: 403 });
      const only = await callRoute(route, [route.scope!]);
      expect({ route: route.operationId, refused: [401, 403].includes(only.status) }).toEqual({
        route: route.operationId,
        refused: false,
      });
    },
  );

  it.each(unscoped.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))(
    'when %s (no declared scope) is called with a token of one unrelated scope, then it is not refused',
    async (_name, route) => {
      const response = await callRoute(route, ['items:read']);
      expect({ route: route.operationId, refused: [401, 403].includes(response.status) }).toEqual({
        route: route.operationId,
        refused: false,
      });
    },
  );
});
