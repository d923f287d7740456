/**
 * The token endpoints: login (`/token`, `/auth/token`; form-encoded or JSON), refresh-token rotation and logout.
 * All are public (the password or the refresh token is the credential); the auth subgraph does the work.
 */
import { RefreshTokenRequest, TokenRequest, TokenResponse } from '@platform/contracts';
import { defineRoute, type RouteDefinition } from '../http/route';
import { Login, Logout, RefreshToken, type TokenPairFieldsFragment } from '../operations/auth-operations';

/** Token responses must never be cached (RFC 6749 section 5.1). */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

const toTokenResponse = (pair: TokenPairFieldsFragment) => ({
  access_token: pair.accessToken,
  token_type: 'bearer' as const,
  expires_in: pair.expiresIn,
  refresh_token: pair.refreshToken,
  scope: pair.scopes.join(' '),
});

const loginRoute = (path: string, operationId: string): RouteDefinition =>
  defineRoute({
    method: 'post',
    path,
    idempotency: 'validate-only',
    operationId,
    summary: 'Log in: exchange username and password for tokens',
    description:
      'A wrong username, a wrong password and an inactive account all fail alike with `Incorrect username or password` ' +
      '(status LOGIN_FAILURE_STATUS, 401 by default). `scope` (space-separated) narrows the access token; a scope the ' +
      'role does not grant, or an unknown one, is a validation error on `scope`.',
    tags: ['auth'],
    security: 'public',
    body: TokenRequest,
    bodyTypes: ['form', 'json'],
    responses: {
      200: { description: 'Access and refresh token', schema: TokenResponse },
      401: { description: 'Incorrect username or password (or 400, as LOGIN_FAILURE_STATUS configures)' },
    },
    handler: async ({ body, gateway, credentials }) => {
      const variables = { username: body.username, password: body.password, scope: body.scope ?? null };
      const data = await gateway.execute(Login, variables, credentials);
      return { status: 200, body: toTokenResponse(data.login), headers: NO_STORE };
    },
  });

export const authRoutes = [
  loginRoute('/token', 'createToken'),
  loginRoute('/auth/token', 'createAuthToken'),
  defineRoute({
    method: 'post',
    path: '/auth/refresh',
    idempotency: 'validate-only',
    operationId: 'refreshToken',
    summary: 'Rotate a refresh token',
    description:
      'Returns a new access token and a new refresh token; the presented one stops working. Presenting an already rotated ' +
      'token again revokes every token of its login (401 `Invalid refresh token`).',
    tags: ['auth'],
    security: 'public',
    body: RefreshTokenRequest,
    bodyTypes: ['json', 'form'],
    responses: {
      200: { description: 'A new token pair', schema: TokenResponse },
      401: { description: 'Unknown, expired, revoked or reused refresh token' },
    },
    handler: async ({ body, gateway, credentials }) => {
      const data = await gateway.execute(RefreshToken, { refreshToken: body.refresh_token }, credentials);
      return { status: 200, body: toTokenResponse(data.refreshToken), headers: NO_STORE };
    },
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
    body: RefreshTokenRequest,
    bodyTypes: ['json', 'form'],
    responses: { 204: { description: 'Revoked; empty body' } },
    handler: async ({ body, gateway, credentials }) => {
      await gateway.execute(Logout, { refreshToken: body.refresh_token }, credentials);
      return { status: 204 };
    },
  }),
];
