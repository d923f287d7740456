/**
 * The idempotency store across a rotation of its secret (IDEMPOTENCY_SECRET, ADR 0021), on the suite's redis-server:
 * stores holding the rings of consecutive rotation steps find, open and compare each other's records, claim a key
 * once between them, and a store whose ring no longer holds a secret does not find what that secret sealed.
 */
import { randomUUID } from 'node:crypto';
import { keyRing, type KeyRing } from '@platform/auth';
import { createLogger } from '@platform/logging';
import { testInfra } from '@platform/testing';
import { createIdempotencyStore, type IdempotencyStore } from './idempotency-store';

const OLD = 'old-idempotency-secret-with-32-bytes-000000';
const NEW = 'new-idempotency-secret-with-32-bytes-111111';
const logger = createLogger('idempotency-store-test', 'silent');
const outcome = { status: 201, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"id":1}').toString('base64') };

describe('idempotency store with a key ring', () => {
  const stores: IdempotencyStore[] = [];
  const storeWith = (secret: KeyRing | string): IdempotencyStore => {
    const store = createIdempotencyStore({
      redisUrl: testInfra().redisUrl,
      commandTimeoutMs: 1_000,
      logger,
      ttlMs: 60_000,
      runningTtlMs: 10_000,
      secret,
    });
    stores.push(store);
    return store;
  };
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });
  const ready = () => new Promise((resolve) => setTimeout(resolve, 300));

  it('when a record is made before a rotation, then stores of every later step but the retired one replay it to the same request and refuse another', async () => {
    const before = storeWith(OLD);
    const switched = storeWith(keyRing(NEW, [OLD]));
    const retired = storeWith(keyRing(NEW));
    await ready();
    const key = randomUUID();
    const request = ['POST', '/items/', { name: 'lamp' }];
    const fingerprint = before.fingerprint(request);
    expect(await before.claim('u:alice', key, fingerprint)).toEqual({ kind: 'claimed' });
    // Still running: the other side of the rotation sees the claim (409), not a free key.
    const mine = switched.fingerprint(request);
    expect(await switched.claim('u:alice', key, mine)).toEqual({ kind: 'running', fingerprint: mine });
    await before.complete('u:alice', key, fingerprint, outcome);
    expect(await switched.claim('u:alice', key, mine)).toEqual({ kind: 'done', fingerprint: mine, response: outcome });
    const other = switched.fingerprint(['POST', '/items/', { name: 'desk' }]);
    const reused = await switched.claim('u:alice', key, other);
    expect(reused.kind).toBe('done');
    expect(reused).not.toHaveProperty('fingerprint', other);
    // Once the old secret is retired, its records are not found (a retry runs again).
    expect(await retired.claim('u:alice', key, retired.fingerprint(request))).toEqual({ kind: 'claimed' });
  });

  it('when two stores of consecutive steps claim one key at once, then exactly one claims it', async () => {
    const published = storeWith(keyRing(OLD, [NEW]));
    const switched = storeWith(keyRing(NEW, [OLD]));
    await ready();
    for (let round = 0; round < 20; round++) {
      const key = randomUUID();
      const request = ['POST', '/items/', { round }];
      const claims = await Promise.all([
        published.claim('u:bob', key, published.fingerprint(request)),
        switched.claim('u:bob', key, switched.fingerprint(request)),
      ]);
      expect(claims.filter((claim) => claim.kind === 'claimed')).toHaveLength(1);
    }
  });
});
