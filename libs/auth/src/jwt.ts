/**
 * Access tokens: HS256 only, on signing and on verifying; `sub` is the username, `uid` the user id; `iat` and `exp`
 * whole seconds (NumericDate as typed JWT libraries and PyJWT read it); `pwv` the account's password version at issue.
 * Signed with the key ring's current secret and its `kid` in the header; verified with the accepted secret that `kid`
 * names (a token without one, from before key ids, with each accepted secret in turn), so tokens of a retiring key keep
 * working until the key leaves the ring (RFC 8725 §3.1, docs/decisions/0021-key-rings-and-redis-failover.md).
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { invalidTokenError, isWellFormedAccessToken } from './credential-format';
import { keyIdOf, ringOf, type KeyRing, type Secrets } from './key-ring';
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

interface SigningKey {
  kid: string;
  key: KeyObject;
}

interface SigningKeys {
  current: SigningKey;
  byKid: Map<string, KeyObject>;
  /** Every accepted key, current first: for a token without `kid`. */
  all: KeyObject[];
}

/**
 * The ring's secrets as KeyObjects with their key ids, made once per ring (a process resolves its rings once at
 * start; a plain string, as tests pass, is kept as the last one seen): given a string, jsonwebtoken first tries it as
 * a public key and catches the failure on every call (about 45 us of CPU per verify, measured in docs/performance.md).
 */
const ringKeys = new WeakMap<KeyRing, SigningKeys>();
let stringKeys: { secret: string; keys: SigningKeys } | undefined;
function keysFor(secrets: Secrets): SigningKeys {
  if (typeof secrets === 'string') {
    if (stringKeys?.secret !== secrets) stringKeys = { secret: secrets, keys: signingKeysOf(ringOf(secrets)) };
    return stringKeys.keys;
  }
  let keys = ringKeys.get(secrets);
  if (!keys) ringKeys.set(secrets, (keys = signingKeysOf(secrets)));
  return keys;
}

function signingKeysOf(ring: KeyRing): SigningKeys {
  const keyOf = (secret: string): SigningKey => ({
    kid: keyIdOf(secret),
    key: createSecretKey(Buffer.from(secret, 'utf8')),
  });
  const accepted = ring.accepted.map(keyOf);
  return {
    current: keyOf(ring.current),
    byKid: new Map(accepted.map(({ kid, key }) => [kid, key])),
    all: accepted.map(({ key }) => key),
  };
}

export function signAccessToken(
  claims: Omit<AccessTokenClaims, 'exp' | 'iat'>,
  secrets: Secrets,
  ttlSeconds: number,
): string {
  const { kid, key } = keysFor(secrets).current;
  // jsonwebtoken sets `iat` to the whole second and `exp` to iat + ttl: integers, as RFC 7519 readers expect. What
  // orders a token against a password reset is `pwv`, not the clock.
  return jwt.sign({ ...claims }, key, { algorithm: ALGORITHM, expiresIn: ttlSeconds, keyid: kid });
}

/** A short-lived token one service presents to another (scope `internal`). */
export function signInternalToken(service: string, secret: Secrets): string {
  return signAccessToken(
    { sub: `service:${service}`, uid: null, role: 'admin', scopes: ['internal'], kind: 'service' },
    secret,
    300,
  );
}

const invalidToken = invalidTokenError;

/** The keys a token may be signed with: the one its `kid` names (none when no accepted key has it), else every one. */
function candidateKeys(token: string, keys: SigningKeys): KeyObject[] {
  let kid: unknown;
  try {
    kid = (JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8')) as {
      kid?: unknown;
    }).kid;
  } catch {
    return [];
  }
  if (kid === undefined) return keys.all;
  const key = typeof kid === 'string' ? keys.byKid.get(kid) : undefined;
  return key ? [key] : [];
}

export function verifyAccessToken(token: string, secrets: Secrets, nowMs?: number): AccessTokenClaims {
  const options = {
    algorithms: [ALGORITHM],
    ...(nowMs === undefined ? {} : { clockTimestamp: Math.floor(nowMs / 1000) }),
  };
  let payload: unknown;
  for (const key of candidateKeys(token, keysFor(secrets))) {
    try {
      payload = jwt.verify(token, key, options);
      break;
    } catch {
      // another accepted key may have signed it (a token without `kid`); none left: invalid below
    }
  }
  if (payload === undefined) throw invalidToken();
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
