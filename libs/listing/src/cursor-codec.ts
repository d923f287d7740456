/**
 * The one pagination cursor codec: compact JSON (the collection, last sort values, a hash of filter and order),
 * base64url, and a truncated HMAC-SHA256. Opaque to clients; any change, or reuse on another collection or with
 * another filter or order, is refused.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { mapRing, type KeyRing, type Secrets } from '@platform/auth';
import type { ScalarValue } from './listing-types';

/** Tokens issued before the payload named its collection (`c`) lack it and are refused like any other bad token. */
const VERSION = 1;
const MAC_BYTES = 16;
/** Far above any real cursor (a few sort values), low enough to refuse junk before hashing it. */
export const MAX_CURSOR_LENGTH = 2048;

/**
 * The cursors' HMAC key: one, or a ring during a JWT_SECRET rotation (cursors made with the current key, read with any
 * accepted one, so a client paging across a rollout is not refused).
 */
export type CursorSecret = Buffer | KeyRing<Buffer>;

const cursorKeyOf = (jwtSecret: string): Buffer => createHmac('sha256', jwtSecret).update('listing-cursor-v1').digest();

/** HMAC key for cursors, derived from the JWT secret (each of its ring) so that REST and every subgraph verify the same tokens. */
export function deriveCursorSecret(jwtSecret: string): Buffer;
export function deriveCursorSecret(jwtSecret: Secrets): CursorSecret;
export function deriveCursorSecret(jwtSecret: Secrets): CursorSecret {
  return typeof jwtSecret === 'string' ? cursorKeyOf(jwtSecret) : mapRing(jwtSecret, cursorKeyOf);
}

/** What a cursor carries: its collection, the stored sort values of the last record seen (id included), the query hash. */
export interface CursorPayload {
  /** The collection the cursor pages through, with its parent when it has one (`users`, `comments@post:5`). */
  collection: string;
  /** Values in the order of the effective sort keys; null for a record without that field. */
  values: Array<ScalarValue | null>;
  /** Hash of the canonical filter and order the cursor was issued for. */
  queryHash: string;
}

export const hashQuery = (canonical: string): string =>
  createHash('sha256').update(canonical).digest('base64url').slice(0, 22);

const mac = (secret: Buffer, body: string): Buffer => createHmac('sha256', secret).update(body).digest().subarray(0, MAC_BYTES);

export function encodeCursor(payload: CursorPayload, secret: CursorSecret): string {
  const body = Buffer.from(JSON.stringify({ v: VERSION, c: payload.collection, h: payload.queryHash, k: payload.values })).toString('base64url');
  return `${body}.${mac(Buffer.isBuffer(secret) ? secret : secret.current, body).toString('base64url')}`;
}

export class CursorError extends Error {}

/** Verifies and decodes; throws CursorError with a client-safe message. */
export function decodeCursor(token: string, secret: CursorSecret): CursorPayload {
  if (token.length === 0 || token.length > MAX_CURSOR_LENGTH) throw new CursorError('is not a valid cursor');
  const parts = token.split('.');
  if (parts.length !== 2) throw new CursorError('is not a valid cursor');
  const [body, signature] = parts as [string, string];
  const given = Buffer.from(signature, 'base64url');
  const signedBy = (key: Buffer): boolean => {
    const expected = mac(key, body);
    // Equal lengths first: timingSafeEqual throws otherwise; the length of a MAC is no secret.
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  const keys = Buffer.isBuffer(secret) ? [secret] : secret.accepted;
  if (!keys.some(signedBy) || given.toString('base64url') !== signature) {
    throw new CursorError('is not a valid cursor');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw new CursorError('is not a valid cursor');
  }
  if (!isPayload(parsed)) throw new CursorError('is not a valid cursor');
  return { collection: parsed.c, values: parsed.k, queryHash: parsed.h };
}

function isPayload(value: unknown): value is { v: number; c: string; h: string; k: Array<ScalarValue | null> } {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    record['v'] === VERSION &&
    typeof record['c'] === 'string' &&
    typeof record['h'] === 'string' &&
    Array.isArray(record['k']) &&
    record['k'].every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v))
  );
}
