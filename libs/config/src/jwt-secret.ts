/** The HS256 secret: required (>= 32 bytes) in production, generated once and kept in DATA_DIR in development. */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnvironmentError } from './load-environment';

const MIN_SECRET_BYTES = 32;

export function resolveJwtSecret(env: {
  NODE_ENV: string;
  JWT_SECRET?: string | undefined;
  DATA_DIR: string;
}): string {
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

/**
 * The secret the gateway presents to the subgraphs (SUBGRAPH_SECRET): required (>= 32 bytes) in production; in
 * development derived from the JWT secret, which every local process already shares, so `npm start` needs no new file.
 */
export function resolveSubgraphSecret(
  env: { NODE_ENV: string; SUBGRAPH_SECRET?: string | undefined },
  jwtSecret: string,
): string {
  if (env.SUBGRAPH_SECRET !== undefined && env.SUBGRAPH_SECRET !== '') {
    if (Buffer.byteLength(env.SUBGRAPH_SECRET) < MIN_SECRET_BYTES) {
      throw new EnvironmentError([`SUBGRAPH_SECRET: must be at least ${MIN_SECRET_BYTES} bytes`]);
    }
    return env.SUBGRAPH_SECRET;
  }
  if (env.NODE_ENV === 'production') {
    throw new EnvironmentError(['SUBGRAPH_SECRET: required when NODE_ENV=production']);
  }
  return createHmac('sha256', jwtSecret).update('api-platform subgraph secret').digest('base64url');
}

export interface ResolvedSecrets {
  jwtSecret: string;
  subgraphSecret: string;
}

/** Both shared secrets of a process, resolved once at start. */
export function resolveSecrets(env: {
  NODE_ENV: string;
  JWT_SECRET?: string | undefined;
  SUBGRAPH_SECRET?: string | undefined;
  DATA_DIR: string;
}): ResolvedSecrets {
  const jwtSecret = resolveJwtSecret(env);
  return { jwtSecret, subgraphSecret: resolveSubgraphSecret(env, jwtSecret) };
}
