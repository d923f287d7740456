/** The HS256 secret: required (>= 32 bytes) in production, generated once and kept in DATA_DIR in development. */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { EnvironmentError, loadEnvironment } from './load-environment';

const MIN_SECRET_BYTES = 32;

/**
 * A shared secret given in the environment (checked: >= 32 bytes), or, without one, refused in production and made
 * by `develop` elsewhere.
 */
function configuredSecret(
  name: string,
  value: string | undefined,
  nodeEnv: string,
  develop: () => string,
): string {
  if (value !== undefined && value !== '') {
    if (Buffer.byteLength(value) < MIN_SECRET_BYTES) {
      throw new EnvironmentError([`${name}: must be at least ${MIN_SECRET_BYTES} bytes`]);
    }
    return value;
  }
  if (nodeEnv === 'production') throw new EnvironmentError([`${name}: required when NODE_ENV=production`]);
  return develop();
}

export function resolveJwtSecret(env: {
  NODE_ENV: string;
  JWT_SECRET?: string | undefined;
  DATA_DIR: string;
}): string {
  return configuredSecret('JWT_SECRET', env.JWT_SECRET, env.NODE_ENV, () => {
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
  });
}

/**
 * The secret the gateway presents to the subgraphs (SUBGRAPH_SECRET): required (>= 32 bytes) in production; in
 * development derived from the JWT secret, which every local process already shares, so `npm start` needs no new file.
 */
export function resolveSubgraphSecret(
  env: { NODE_ENV: string; SUBGRAPH_SECRET?: string | undefined },
  jwtSecret: string,
): string {
  return configuredSecret('SUBGRAPH_SECRET', env.SUBGRAPH_SECRET, env.NODE_ENV, () =>
    createHmac('sha256', jwtSecret).update('api-platform subgraph secret').digest('base64url'),
  );
}

/**
 * The key webhook signing secrets are sealed with at rest (WEBHOOK_SECRETS_KEY, events service and delivery worker):
 * required (>= 32 bytes) in production; in development derived from the JWT secret like SUBGRAPH_SECRET.
 */
export function resolveWebhookSecretsKey(
  env: { NODE_ENV: string; WEBHOOK_SECRETS_KEY?: string | undefined },
  jwtSecret: string,
): string {
  return configuredSecret('WEBHOOK_SECRETS_KEY', env.WEBHOOK_SECRETS_KEY, env.NODE_ENV, () =>
    createHmac('sha256', jwtSecret).update('api-platform webhook secrets key').digest('base64url'),
  );
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

/**
 * A service's environment parsed (loadEnvironment: every problem listed, exit 1) and its two shared secrets resolved:
 * what each process's environment.ts returns.
 */
export function loadServiceEnvironment<
  S extends z.ZodType<{
    NODE_ENV: string;
    JWT_SECRET?: string | undefined;
    SUBGRAPH_SECRET?: string | undefined;
    DATA_DIR: string;
  }>,
>(schema: S, options: Parameters<typeof loadEnvironment>[1] = {}): z.infer<S> & ResolvedSecrets {
  const env = loadEnvironment(schema, options);
  return { ...env, ...resolveSecrets(env) };
}
