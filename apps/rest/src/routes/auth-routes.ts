/**
 * The token endpoints: login (`/token`, `/auth/token`; form-encoded or JSON), refresh-token rotation and logout.
 * All are public (the password or the refresh token is the credential); the auth subgraph does the work.
 */
import type { z } from 'zod';
import { RefreshTokenRequest, TokenRequest, TokenResponse } from '@platform/contracts';
import { defineRoute, type RouteContext, type RouteDefinition } from '../http/route';
import { OPERATIONS } from '../gateway/gateway-client';
import type { TokenPairFieldsFragment } from '../operations/__generated__/operations';

const { Login, Logout, RefreshToken } = OPERATIONS;

const toTokenResponse = (pair: TokenPairFieldsFragment) => ({
  access_token: pair.accessToken,
  token_type: 'bearer' as const,
  expires_in: pair.expiresIn,
  refresh_token: pair.refreshToken,
  scope: pair.scopes.join(' '),
});

/**
 * A route that issues a token pair: public (the password or the refresh token is the credential), never cached, and
 * its Idempotency-Key checked but nothing stored, so no token ever sits in Redis.
 */
const tokenPairRoute = <B extends z.ZodType>({
  issued,
  refused,
  issue,
  ...route
}: Pick<
  RouteDefinition<z.ZodType, z.ZodType, B>,
  'path' | 'operationId' | 'summary' | 'description' | 'body' | 'bodyTypes'
> & {
  issued: string;
  refused: string;
  issue: (context: RouteContext<unknown, unknown, z.infer<B>>) => Promise<TokenPairFieldsFragment>;
}): RouteDefinition =>
  defineRoute<z.ZodType, z.ZodType, B>({
    ...route,
    method: 'post',
    idempotency: 'validate-only',
    // Token responses must never be cached (RFC 6749 §5.1).
    carriesSecret: true,
    tags: ['auth'],
    security: 'public',
    responses: {
      200: { description: issued, schema: TokenResponse },
      401: { description: refused },
    },
    handler: async (context) => ({ status: 200, body: toTokenResponse(await issue(context)) }),
  });

const loginRoute = (path: string, operationId: string): RouteDefinition =>
  tokenPairRoute({
    path,
    operationId,
    summary: 'Log in: exchange username and password for tokens',
    description:
      'A wrong username, a wrong password and an inactive account all fail alike with `Incorrect username or password` ' +
      '(status LOGIN_FAILURE_STATUS, 401 by default). `scope` (space-separated) narrows the access token; a scope the ' +
      'role does not grant, or an unknown one, is a validation error on `scope`.',
    body: TokenRequest,
    bodyTypes: ['form', 'json'],
    issued: 'Access and refresh token',
    refused: 'Incorrect username or password (or 400, as LOGIN_FAILURE_STATUS configures)',
    issue: async ({ body, gateway, credentials }) => {
      const variables = { username: body.username, password: body.password, scope: body.scope ?? null };
      return (await gateway.execute(Login, variables, credentials)).login;
    },
  });

export const authRoutes = [
  loginRoute('/token', 'createToken'),
  loginRoute('/auth/token', 'createAuthToken'),
  tokenPairRoute({
    path: '/auth/refresh',
    operationId: 'refreshToken',
    summary: 'Rotate a refresh token',
    description:
      'Returns a new access token and a new refresh token; the presented one stops working. Presenting an already rotated ' +
      'token again revokes every token of its login (401 `Invalid refresh token`).',
    body: RefreshTokenRequest,
    bodyTypes: ['json', 'form'],
    issued: 'A new token pair',
    refused: 'Unknown, expired, revoked or reused refresh token',
    issue: async ({ body, gateway, credentials }) =>
      (await gateway.execute(RefreshToken, { refreshToken: body.refresh_token }, credentials)).refreshToken,
  }),
  defineRoute({
    method: 'post',
    path: '/auth/logout',
    operationId: 'logout',
    summary: 'Log out: revoke a refresh token and its whole login',
    description:
      'Idempotent: an unknown or already revoked token is accepted too. Access tokens expire on their own (ACCESS_TOKEN_TTL).',
    tags: ['auth'],
    security: 'public',
    // Its request carries a refresh token.
    carriesSecret: true,
    body: RefreshTokenRequest,
    bodyTypes: ['json', 'form'],
    responses: { 204: { description: 'Revoked; empty body' } },
    handler: async ({ body, gateway, credentials }) => {
      await gateway.execute(Logout, { refreshToken: body.refresh_token }, credentials);
      return { status: 204 };
    },
  }),
];
