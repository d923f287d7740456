/** Turns a request's bearer token into a Principal; a bad token is recorded, and thrown only where auth is needed. */
import type { IncomingHttpHeaders } from 'node:http';
import { bearerTokenFrom, type AccessTokenVerifier, type Caller } from '@platform/auth';
import { AppError } from '@platform/errors';

export function authenticateRequest(headers: IncomingHttpHeaders, tokens: AccessTokenVerifier): Caller {
  try {
    const token = bearerTokenFrom(headers.authorization);
    if (token === null) return { principal: null, authError: null };
    const claims = tokens.verify(token);
    return {
      principal: {
        kind: claims.kind,
        userId: claims.uid,
        username: claims.sub,
        role: claims.role,
        scopes: claims.scopes,
      },
      authError: null,
    };
  } catch (error) {
    return {
      principal: null,
      authError: error instanceof AppError ? error : new AppError('UNAUTHENTICATED', 'Invalid token'),
    };
  }
}
