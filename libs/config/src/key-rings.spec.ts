/**
 * The shared secrets as key rings, from the environment: JWT_SECRET, SUBGRAPH_SECRET, IDEMPOTENCY_SECRET and
 * WEBHOOK_SECRETS_KEY, each with its _ACCEPTED values.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvironmentError } from './load-environment';
import { resolveIdempotencySecret, resolveSecrets, resolveWebhookSecretsKey } from './jwt-secret';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);

describe('key rings from the environment', () => {
  const dir = mkdtempSync(join(tmpdir(), 'key-rings-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const production = { NODE_ENV: 'production', DATA_DIR: dir };

  it('when only the secrets are set, then each ring holds just that value (as before key rings)', () => {
    expect(resolveSecrets({ ...production, JWT_SECRET: A, SUBGRAPH_SECRET: B })).toEqual({
      jwtSecret: { current: A, accepted: [A] },
      subgraphSecret: { current: B, accepted: [B] },
    });
  });

  it('when *_ACCEPTED lists values, then they are accepted after the current one, blanks and repeats of the current dropped', () => {
    const rings = resolveSecrets({
      ...production,
      JWT_SECRET: A,
      JWT_SECRET_ACCEPTED: ` ${B} ,${A},`,
      SUBGRAPH_SECRET: B,
      SUBGRAPH_SECRET_ACCEPTED: C,
    });
    expect(rings.jwtSecret).toEqual({ current: A, accepted: [A, B] });
    expect(rings.subgraphSecret).toEqual({ current: B, accepted: [B, C] });
  });

  it('when an accepted value is shorter than 32 bytes, or production lacks SUBGRAPH_SECRET, then the environment is refused', () => {
    expect(() => resolveSecrets({ ...production, JWT_SECRET: A, SUBGRAPH_SECRET: B, JWT_SECRET_ACCEPTED: 'short' })).toThrow(
      EnvironmentError,
    );
    expect(() =>
      resolveSecrets({ ...production, JWT_SECRET: A, SUBGRAPH_SECRET: B, SUBGRAPH_SECRET_ACCEPTED: `${C},short` }),
    ).toThrow('SUBGRAPH_SECRET_ACCEPTED: each value must be at least 32 bytes');
    expect(() => resolveSecrets({ ...production, JWT_SECRET: A, JWT_SECRET_ACCEPTED: B })).toThrow(
      'SUBGRAPH_SECRET: required when NODE_ENV=production',
    );
  });

  it('when development derives the subgraph secret, then it derives one per JWT key, so a JWT rotation rotates it alike', () => {
    const before = resolveSecrets({ NODE_ENV: 'development', DATA_DIR: dir, JWT_SECRET: A });
    const during = resolveSecrets({ NODE_ENV: 'development', DATA_DIR: dir, JWT_SECRET: B, JWT_SECRET_ACCEPTED: A });
    expect(during.subgraphSecret.accepted).toEqual([during.subgraphSecret.current, before.subgraphSecret.current]);
    expect(during.subgraphSecret.current).not.toBe(before.subgraphSecret.current);
  });

  it('when IDEMPOTENCY_SECRET is unset, then the JWT ring seals (as before the setting); set, it is its own ring', () => {
    const jwt = { current: A, accepted: [A, B] };
    expect(resolveIdempotencySecret({}, jwt)).toEqual(jwt);
    expect(resolveIdempotencySecret({ IDEMPOTENCY_SECRET: C, IDEMPOTENCY_SECRET_ACCEPTED: A }, jwt)).toEqual({
      current: C,
      accepted: [C, A],
    });
    expect(() => resolveIdempotencySecret({ IDEMPOTENCY_SECRET: 'short' }, jwt)).toThrow(EnvironmentError);
  });

  it('when development derives WEBHOOK_SECRETS_KEY, then it derives one per JWT key, so a JWT rotation keeps the old one opening', () => {
    const dev = { NODE_ENV: 'development' };
    const before = resolveWebhookSecretsKey(dev, { current: A, accepted: [A] });
    const during = resolveWebhookSecretsKey(dev, { current: B, accepted: [B, A] });
    expect(before.accepted).toEqual([before.current]);
    expect(during.current).not.toBe(before.current);
    expect(during.accepted).toEqual([during.current, before.current]);
  });

  it('when WEBHOOK_SECRETS_KEY is set, then it seals and WEBHOOK_SECRETS_KEY_ACCEPTED still open; production requires it', () => {
    const jwt = { current: A, accepted: [A, B] };
    expect(resolveWebhookSecretsKey({ NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: C }, jwt)).toEqual({
      current: C,
      accepted: [C],
    });
    expect(
      resolveWebhookSecretsKey({ NODE_ENV: 'development', WEBHOOK_SECRETS_KEY: C, WEBHOOK_SECRETS_KEY_ACCEPTED: `${B},${C}` }, jwt),
    ).toEqual({ current: C, accepted: [C, B] });
    expect(() => resolveWebhookSecretsKey({ NODE_ENV: 'production' }, jwt)).toThrow(
      'WEBHOOK_SECRETS_KEY: required when NODE_ENV=production',
    );
    expect(() =>
      resolveWebhookSecretsKey({ NODE_ENV: 'production', WEBHOOK_SECRETS_KEY: C, WEBHOOK_SECRETS_KEY_ACCEPTED: 'short' }, jwt),
    ).toThrow('WEBHOOK_SECRETS_KEY_ACCEPTED: each value must be at least 32 bytes');
  });
});
