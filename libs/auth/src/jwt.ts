/**
 * Access tokens: HS256 only, on signing and on verifying; `sub` is the username, `uid` the user id; `iat` and `exp`
 * whole seconds (NumericDate as typed JWT libraries and PyJWT read it); `pwv` the account's password version at issue.
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { invalidTokenError, isWellFormedAccessToken } from './credential-format';
import type { Principal } from './principal';
import { ROLES, type Role } from './scopes';

export interface AccessTokenClaims {
  sub: string;
  uid: number | null;
  role: Role;
  scopes: string[];
  /** `user` for logins, `api-key` for a key exchanged at the gateway, `service` for internal calls. */
  kind: Principal['kind'];
  /**
   * A login token's password version: how many times the account's tokens had been revoked (password resets) when it
   * was issued. A later reset moves the account's count past it, so the token is refused, whatever the clocks say and
   * within the same second too (`iat` is whole seconds).
   */
  pwv?: number;
  exp?: number;
  iat?: number;
}

const ALGORITHM = 'HS256' as const;

/**
 * The secret as a KeyObject, made once per secret: given a string, jsonwebtoken first tries it as a public key and
 * catches the failure on every call (about 45 us of CPU per verify, measured in docs/performance.md).
 */
let cachedKey: { secret: string; key: KeyObject } | undefined;
function keyFor(secret: string): KeyObject {
  if (cachedKey?.secret !== secret) cachedKey = { secret, key: createSecretKey(Buffer.from(secret, 'utf8')) };
  return cachedKey.key;
}

export function signAccessToken(
  claims: Omit<AccessTokenClaims, 'exp' | 'iat'>,
  secret: string,
  ttlSeconds: number,
): string {
  // jsonwebtoken sets `iat` to the whole second and `exp` to iat + ttl: integers, as RFC 7519 readers expect. What
  // orders a token against a password reset is `pwv`, not the clock.
  return jwt.sign({ ...claims }, keyFor(secret), { algorithm: ALGORITHM, expiresIn: ttlSeconds });
}

/** A short-lived token one service presents to another (scope `internal`). */
export function signInternalToken(service: string, secret: string): string {
  return signAccessToken(
    { sub: `service:${service}`, uid: null, role: 'admin', scopes: ['internal'], kind: 'service' },
    secret,
    300,
  );
}

const invalidToken = invalidTokenError;

export function verifyAccessToken(token: string, secret: string, nowMs?: number): AccessTokenClaims {
  let payload: unknown;
  try {
    payload = jwt.verify(token, keyFor(secret), {
      algorithms: [ALGORITHM],
      ...(nowMs === undefined ? {} : { clockTimestamp: Math.floor(nowMs / 1000) }),
    });
  } catch {
    throw invalidToken();
  }
  if (typeof payload !== 'object' || payload === null) throw invalidToken();
  const claims = payload as Record<string, unknown>;
  if (typeof claims['sub'] !== 'string' || claims['sub'] === '') throw invalidToken();
  if (typeof claims['exp'] !== 'number') throw invalidToken();
  const role = claims['role'];
  const scopes = claims['scopes'];
  const uid = claims['uid'];
  const kind = claims['kind'] ?? 'user';
  const pwv = claims['pwv'];
  if (pwv !== undefined && !(typeof pwv === 'number' && Number.isInteger(pwv) && pwv >= 0)) throw invalidToken();
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) throw invalidToken();
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string')) throw invalidToken();
  if (!(uid === null || (typeof uid === 'number' && Number.isInteger(uid)))) throw invalidToken();
  if (kind !== 'user' && kind !== 'api-key' && kind !== 'service') throw invalidToken();
  return {
    sub: claims['sub'],
    uid,
    role: role as Role,
    scopes: scopes as string[],
    kind,
    exp: claims['exp'],
    ...(typeof claims['iat'] === 'number' ? { iat: claims['iat'] } : {}),
    ...(pwv === undefined ? {} : { pwv: pwv as number }),
  };
}

/** The token of an `Authorization: Bearer <token>` header; null when absent, an AppError when malformed. */
export function bearerTokenFrom(header: string | undefined): string | null {
  if (header === undefined || header === '') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1] || !isWellFormedAccessToken(match[1])) throw invalidToken();
  return match[1];
}
