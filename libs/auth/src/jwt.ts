/** Access tokens: HS256 only, on signing and on verifying; `sub` is the username, `uid` the user id. */
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
  // `iat` to the millisecond (RFC 7519 NumericDates may be fractional): a token issued just after a password reset
  // must not look as old as one issued just before it within the same second.
  return jwt.sign({ ...claims, iat: Date.now() / 1000 }, keyFor(secret), { algorithm: ALGORITHM, expiresIn: ttlSeconds });
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
  };
}

/** The token of an `Authorization: Bearer <token>` header; null when absent, an AppError when malformed. */
export function bearerTokenFrom(header: string | undefined): string | null {
  if (header === undefined || header === '') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1] || !isWellFormedAccessToken(match[1])) throw invalidToken();
  return match[1];
}
