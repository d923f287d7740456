/**
 * The alphabets credentials must keep before anything else looks at them (docs/interface.md#credentials): a value
 * outside its alphabet is a 401 at once, so no malformed credential is ever hashed, looked up or forwarded as a header
 * (which the HTTP client would refuse with a 503). Checked by the REST facade and at the gateway entry; defined only
 * here.
 */
import { AppError } from '@platform/errors';

/**
 * API keys: visible ASCII (0x21-0x7E), 1..512 characters. Generated keys (`ak_` + base64url) are a subset; the
 * bootstrap key (BOOTSTRAP_API_KEY) is held to the same alphabet when auth starts. It is every character a header
 * value can carry without escaping, so a key that fits can travel in `X-API-Key`, and one that does not never could.
 */
export const API_KEY_MAX_LENGTH = 512;
const API_KEY_FORMAT = /^[\x21-\x7e]+$/;

/** Access tokens: a compact JWS, three base64url segments (header, payload, signature), within a header's size. */
export const ACCESS_TOKEN_MAX_LENGTH = 4096;
const ACCESS_TOKEN_FORMAT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const BEARER_SCHEME = /^bearer(?:\s|$)/i;

export const isWellFormedApiKey = (value: string): boolean =>
  value.length > 0 && value.length <= API_KEY_MAX_LENGTH && API_KEY_FORMAT.test(value);

export const isWellFormedAccessToken = (value: string): boolean =>
  value.length <= ACCESS_TOKEN_MAX_LENGTH && ACCESS_TOKEN_FORMAT.test(value);

export const invalidTokenError = () => new AppError('UNAUTHENTICATED', 'Invalid token');
export const invalidApiKeyError = () => new AppError('UNAUTHENTICATED', 'Invalid API Key');

/**
 * The 401 a request's credentials earn by their form alone, or null when each one present is well formed. A
 * `Bearer` Authorization must hold exactly one token of the JWT alphabet; another scheme (e.g. Basic, which OAuth
 * clients send to token endpoints) is not judged here but where a bearer token is required, as before.
 */
export function malformedCredentialError(
  authorization: string | undefined,
  apiKey: string | undefined,
): AppError | null {
  if (authorization !== undefined && authorization !== '' && BEARER_SCHEME.test(authorization)) {
    const token = /^bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (token === undefined || !isWellFormedAccessToken(token)) return invalidTokenError();
  }
  if (apiKey !== undefined && !isWellFormedApiKey(apiKey)) return invalidApiKeyError();
  return null;
}
