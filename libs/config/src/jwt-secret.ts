/**
 * The shared secrets, each a key ring (docs/decisions/0021-key-rings-and-redis-failover.md): `<NAME>` is the current
 * value (signs, is sent, seals), `<NAME>_ACCEPTED` the other values still accepted during a rotation (comma-separated).
 * The HS256 secret: required (>= 32 bytes) in production, generated once and kept in DATA_DIR in development.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { keyRing, type KeyRing } from '@platform/auth';
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

/**
 * `<NAME>_ACCEPTED`: the values accepted besides the current one, comma-separated (base64 values, as
 * `openssl rand -base64 48` makes, never hold a comma), each >= 32 bytes.
 */
function acceptedSecrets(name: string, value: string | undefined): string[] {
  const values = (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  const short = values.filter((v) => Buffer.byteLength(v) < MIN_SECRET_BYTES);
  if (short.length > 0) {
    throw new EnvironmentError([`${name}: each value must be at least ${MIN_SECRET_BYTES} bytes`]);
  }
  return values;
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

const developmentSubgraphSecret = (jwtSecret: string): string =>
  createHmac('sha256', jwtSecret).update('api-platform subgraph secret').digest('base64url');

/**
 * The secret the gateway presents to the subgraphs (SUBGRAPH_SECRET): required (>= 32 bytes) in production; in
 * development derived from the JWT secret, which every local process already shares, so `npm start` needs no new file.
 */
export function resolveSubgraphSecret(
  env: { NODE_ENV: string; SUBGRAPH_SECRET?: string | undefined },
  jwtSecret: string,
): string {
  return configuredSecret('SUBGRAPH_SECRET', env.SUBGRAPH_SECRET, env.NODE_ENV, () =>
    developmentSubgraphSecret(jwtSecret),
  );
}

const developmentWebhookSecretsKey = (jwtSecret: string): string =>
  createHmac('sha256', jwtSecret).update('api-platform webhook secrets key').digest('base64url');

/**
 * The keys webhook signing secrets are sealed with at rest (events service and delivery worker): WEBHOOK_SECRETS_KEY
 * seals, WEBHOOK_SECRETS_KEY_ACCEPTED (earlier keys) still open. Required (>= 32 bytes) in production; unset in
 * development, derived from each key of the JWT ring, so a JWT rotation keeps every sealed secret readable.
 */
export function resolveWebhookSecretsKey(
  env: {
    NODE_ENV: string;
    WEBHOOK_SECRETS_KEY?: string | undefined;
    WEBHOOK_SECRETS_KEY_ACCEPTED?: string | undefined;
  },
  jwtSecret: KeyRing,
): KeyRing {
  const current = configuredSecret('WEBHOOK_SECRETS_KEY', env.WEBHOOK_SECRETS_KEY, env.NODE_ENV, () =>
    developmentWebhookSecretsKey(jwtSecret.current),
  );
  const derived = env.WEBHOOK_SECRETS_KEY ? [] : jwtSecret.accepted.slice(1).map(developmentWebhookSecretsKey);
  const accepted = acceptedSecrets('WEBHOOK_SECRETS_KEY_ACCEPTED', env.WEBHOOK_SECRETS_KEY_ACCEPTED);
  return keyRing(current, [...derived, ...accepted]);
}

/** A process that opens sealed webhook secrets (the events subgraph, the deliveries worker): its settings with the ring. */
export const withWebhookSecretsKey = <
  E extends {
    NODE_ENV: string;
    WEBHOOK_SECRETS_KEY?: string | undefined;
    WEBHOOK_SECRETS_KEY_ACCEPTED?: string | undefined;
    jwtSecret: KeyRing;
  },
>(
  env: E,
): E & { webhookSecretsKey: KeyRing } => ({
  ...env,
  webhookSecretsKey: resolveWebhookSecretsKey(env, env.jwtSecret),
});

export interface ResolvedSecrets {
  /** JWT_SECRET signs; JWT_SECRET_ACCEPTED verify too (and the cursor keys and the facade's proof derive from each). */
  jwtSecret: KeyRing;
  /** SUBGRAPH_SECRET is sent; SUBGRAPH_SECRET_ACCEPTED are let in too. */
  subgraphSecret: KeyRing;
}

/** Both shared secrets of a process, each a key ring, resolved once at start. */
export function resolveSecrets(env: {
  NODE_ENV: string;
  JWT_SECRET?: string | undefined;
  JWT_SECRET_ACCEPTED?: string | undefined;
  SUBGRAPH_SECRET?: string | undefined;
  SUBGRAPH_SECRET_ACCEPTED?: string | undefined;
  DATA_DIR: string;
}): ResolvedSecrets {
  const jwtSecret = keyRing(
    resolveJwtSecret(env),
    acceptedSecrets('JWT_SECRET_ACCEPTED', env.JWT_SECRET_ACCEPTED),
  );
  // Refused when missing or short in production; in development without one, derived from each JWT key, so a JWT
  // rotation rotates it alike.
  const current = resolveSubgraphSecret(env, jwtSecret.current);
  const derived = env.SUBGRAPH_SECRET ? [] : jwtSecret.accepted.slice(1).map(developmentSubgraphSecret);
  const accepted = acceptedSecrets('SUBGRAPH_SECRET_ACCEPTED', env.SUBGRAPH_SECRET_ACCEPTED);
  return { jwtSecret, subgraphSecret: keyRing(current, [...derived, ...accepted]) };
}

/**
 * The key that seals `Idempotency-Key` records in Redis and names them (rest): IDEMPOTENCY_SECRET (>= 32 bytes), and
 * IDEMPOTENCY_SECRET_ACCEPTED still opened during its rotation; unset, the JWT key ring itself (what sealed them
 * before this setting existed, so records stay readable across the upgrade).
 */
export function resolveIdempotencySecret(
  env: { IDEMPOTENCY_SECRET?: string | undefined; IDEMPOTENCY_SECRET_ACCEPTED?: string | undefined },
  jwtSecret: KeyRing,
): KeyRing {
  const accepted = acceptedSecrets('IDEMPOTENCY_SECRET_ACCEPTED', env.IDEMPOTENCY_SECRET_ACCEPTED);
  if (env.IDEMPOTENCY_SECRET === undefined || env.IDEMPOTENCY_SECRET === '') {
    return keyRing(jwtSecret.current, [...jwtSecret.accepted.slice(1), ...accepted]);
  }
  if (Buffer.byteLength(env.IDEMPOTENCY_SECRET) < MIN_SECRET_BYTES) {
    throw new EnvironmentError([`IDEMPOTENCY_SECRET: must be at least ${MIN_SECRET_BYTES} bytes`]);
  }
  return keyRing(env.IDEMPOTENCY_SECRET, accepted);
}

/**
 * A service's environment parsed (loadEnvironment: every problem listed, exit 1) and its two shared secrets resolved:
 * what each process's environment.ts returns.
 */
export function loadServiceEnvironment<
  S extends z.ZodType<{
    NODE_ENV: string;
    JWT_SECRET?: string | undefined;
    JWT_SECRET_ACCEPTED?: string | undefined;
    SUBGRAPH_SECRET?: string | undefined;
    SUBGRAPH_SECRET_ACCEPTED?: string | undefined;
    DATA_DIR: string;
  }>,
>(schema: S, options: Parameters<typeof loadEnvironment>[1] = {}): z.infer<S> & ResolvedSecrets {
  const env = loadEnvironment(schema, options);
  return { ...env, ...resolveSecrets(env) };
}
