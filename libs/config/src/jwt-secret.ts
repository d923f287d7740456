/** The HS256 secret: required (>= 32 bytes) in production, generated once and kept in DATA_DIR in development. */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnvironmentError } from './load-environment';

const MIN_SECRET_BYTES = 32;

export function resolveJwtSecret(env: { NODE_ENV: string; JWT_SECRET?: string | undefined; DATA_DIR: string }): string {
  if (env.JWT_SECRET !== undefined && env.JWT_SECRET !== '') {
    if (Buffer.byteLength(env.JWT_SECRET) < MIN_SECRET_BYTES) {
      throw new EnvironmentError([`JWT_SECRET: must be at least ${MIN_SECRET_BYTES} bytes`]);
    }
    return env.JWT_SECRET;
  }
  if (env.NODE_ENV === 'production') {
    throw new EnvironmentError(['JWT_SECRET: required when NODE_ENV=production']);
  }
  const file = join(env.DATA_DIR, 'jwt-secret');
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= MIN_SECRET_BYTES) return existing;
  } catch {
    // not there yet: generate below
  }
  mkdirSync(env.DATA_DIR, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
