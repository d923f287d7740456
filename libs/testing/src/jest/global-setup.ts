/**
 * jest globalSetup of the e2e tier: the run's infrastructure (./infra), then the whole system as real processes in
 * production mode with secrets generated for this run; development-only surfaces are tested on processes of their own.
 */
import { join } from 'node:path';
import { existsSync } from 'node:fs';
// jest loads globalSetup with Node's own resolver (no moduleNameMapper), so the dev stack by its path.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureChromium, generatedSecret, productionMode, repositoryRoot, startSystem } from '../../../dev-stack/src';
import type { TestStack } from '../test-stack';
import { acquireInfra, log, releaseInfra } from './infra';

export default async function globalSetup(): Promise<void> {
  const rootDir = repositoryRoot();
  if (!existsSync(join(rootDir, 'dist', 'apps', 'rest', 'main.js'))) {
    throw new Error('dist/ is missing: run `npm test` (it builds first) or `npm run build`');
  }
  const { infra, temp } = await acquireInfra();
  const abandon = async (error: unknown): Promise<never> => {
    // A failed start leaves nothing behind: infrastructure stopped (when no other tier holds it), temp dir removed.
    await releaseInfra();
    throw error;
  };
  // The /docs browser test needs Chromium; installing it here (apt-get, first run on a fresh machine) keeps that
  // test inside its timeout. Without it, only that test fails, with its own clear message.
  await ensureChromium(log).catch((error: unknown) =>
    log(`no chromium: ${error instanceof Error ? error.message : String(error)}`),
  );
  // Production delivers webhooks to https endpoints only: the tests' receivers present this certificate, trusted here.
  const webhookTls = infra.webhookTls;
  const jwtSecret = generatedSecret();
  const subgraphSecret = generatedSecret();
  const gatewayMode = process.env['TEST_GATEWAY_MODE'] === 'remote' ? 'remote' : 'embedded';
  const system = await startSystem({
    rootDir,
    mongoUrl: infra.mongoUrl,
    redisUrl: infra.redisUrl,
    jwtSecret,
    freePorts: true,
    logDir: temp.path,
    env: {
      LOG_LEVEL: 'info',
      DATA_DIR: join(temp.path, 'data'),
      ...productionMode(subgraphSecret),
      RATE_LIMIT_POINTS: '100000',
      LOGIN_RATE_LIMIT_POINTS: '100000',
      // The write deadline (ADR 0020) with room for a 2-core machine running ~8 test files at once: the suite's bursts
      // (100 likes, 20 racing PATCHes) then meet FerretDB's lock queue, not the deadline. What a deadline does is
      // tested on systems of their own with short ones (write-deadlines, hardening-subgraph-outage).
      SUBGRAPH_TIMEOUT_MS: '15000',
      // A remote facade waits for a mutation's deadline, its commit bound and the slack (README).
      GATEWAY_TIMEOUT_MS: '25000',
      BOOTSTRAP_ADMIN_USERNAME: 'admin',
      BOOTSTRAP_ADMIN_PASSWORD: 'admin-password-1',
      BOOTSTRAP_API_KEY: 'test-bootstrap-api-key-0123456789',
      // The shared stack's tests watch reads reach the subgraphs (logs, spans, command counts); the read cache is
      // tested on a system of its own (apps/e2e/src/read-cache.e2e.ts). The subgraphs still bump their generations.
      READ_CACHE: 'off',
      // The facade runs the default mode (embedded, ADR 0007) unless TEST_GATEWAY_MODE=remote runs the whole suite
      // through the gateway process; the few tests that watch a hop read `stack.gatewayMode`.
      GATEWAY_MODE: gatewayMode,
      // Webhook tests receive on loopback (as `npm start` allows), retry within seconds and recover within seconds.
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      NODE_EXTRA_CA_CERTS: webhookTls.certFile,
      WEBHOOK_RETRY_SCHEDULE: '1,1,2,2,3',
      WEBHOOK_TIMEOUT_MS: '3000',
      // The sweep is the safety net behind the queue (retries are delayed jobs, which no test here loses): on FerretDB
      // each sweep is a pass over the suite's deliveries (about 0.5 s once it holds a few hundred), so not every second.
      WEBHOOK_SWEEP_INTERVAL_MS: '5000',
      EVENTS_SWEEP_AFTER_MS: '2000',
      // Every suite's webhooks of the one admin share its delivery budget: none of them may be withheld for it here.
      WEBHOOK_OWNER_DELIVERY_BUDGET: '1000000',
    },
  }).catch(abandon);
  const stack: TestStack = {
    restUrl: system.urls.rest,
    gatewayUrl: system.urls.gateway,
    ...infra,
    jwtSecret,
    subgraphSecret,
    urls: { ...system.urls, logDir: temp.path },
    metricsUrls: system.metricsUrls,
    gatewayMode,
  };
  process.env['TEST_STACK'] = JSON.stringify(stack);
  (globalThis as Record<string, unknown>)['__TEST_STACK_TEARDOWN__'] = async () => {
    await system.stop();
    await releaseInfra();
  };
}
