/** Token endpoint schemas: the login form (OAuth2 password grant shape), refresh and logout bodies, the token response. */
import { z } from 'zod';
import { strictBody } from './strict-body';
import { text } from './text';
import { ALL_SCOPES } from '@platform/auth';

/** Space-separated scope names, each one of ALL_SCOPES (which ones the role grants is the auth subgraph's check). */
const SCOPE_NAME = `(${ALL_SCOPES.join('|')})`;
const SCOPE_LIST = `^${SCOPE_NAME}( ${SCOPE_NAME})*$`;

export const TokenRequest = strictBody('TokenRequest', {
  username: text().min(1, 'is required').max(50, 'must be at most 50 characters'),
  password: text().min(1, 'is required').max(128, 'must be at most 128 characters'),
  scope: text()
    .max(500, 'must be at most 500 characters')
    .regex(new RegExp(SCOPE_LIST), `must be space-separated scope names: ${ALL_SCOPES.join(', ')}`)
    .optional()
    .describe('Space-separated scopes to narrow the token to; each must be granted by the role. Default: every scope of the role.'),
  grant_type: z.literal('password', 'must be "password"').optional().describe('OAuth2 clients send `password`; optional.'),
}, {
  description: 'Login with username and password (form-encoded or JSON).',
  example: { username: 'alice', password: 'correct-horse-1', scope: 'users:read items:read' },
});
export type TokenRequestInput = z.infer<typeof TokenRequest>;

export const RefreshTokenRequest = strictBody('RefreshTokenRequest', {
  refresh_token: text().min(1, 'is required').max(200, 'must be at most 200 characters'),
  // RFC 6749 section 6: an OAuth2 client refreshing (the password flow's refreshUrl) names its grant.
  grant_type: z
    .literal('refresh_token', 'must be "refresh_token"')
    .optional()
    .describe('OAuth2 clients send `refresh_token`; optional.'),
}, {
  description: 'A refresh token from a previous token response (form-encoded or JSON).',
  example: { refresh_token: 'rt_Q2hhbmdlIG1lIQ' },
});

export const TokenResponse = z
  .object({
    access_token: z.string().max(4096).describe('HS256 JWT with sub (username), uid, role, scopes, exp'),
    token_type: z.literal('bearer'),
    expires_in: z.number().int().min(1).max(2_147_483_647).describe('Seconds until the access token expires'),
    refresh_token: z.string().max(200).describe('Opaque; single use: POST /auth/refresh rotates it'),
    scope: z
      .string()
      .max(500)
      .regex(new RegExp(`^(${SCOPE_NAME}( ${SCOPE_NAME})*)?$`))
      .describe('Space-separated scopes the access token carries'),
  })
  .meta({
    id: 'TokenResponse',
    description: 'Access token response.',
    example: { access_token: 'eyJhbGciOiJIUzI1NiIs...', token_type: 'bearer', expires_in: 1800, refresh_token: 'rt_...', scope: 'users:read users:write' },
  });
