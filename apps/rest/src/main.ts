/** Entry point of the REST facade process. */
// First: tracing hooks the modules the imports below load (libs/tracing/src/tracing.ts).
import './tracing';
import { createLogger } from '@platform/logging';
import { runService } from '@platform/service';
import { loadRestEnvironment } from './environment';
import { createRestApp } from './app';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { subgraphUrlsOf } from '@platform/config';
import { createCredentialChecks, createGenerationReader, createReadCache } from '@platform/federation';
import type { GenerationReader } from '@platform/read-cache';
import type { Logger } from '@platform/logging';
import { facadeProofHeaders } from '@platform/rate-limit';
import { ALL_OPERATIONS, GatewayClient, type Gateway } from './gateway/gateway-client';
import { EmbeddedGateway } from './gateway/embedded-gateway';
import type { RestEnvironment } from './environment';
import { createRateLimiting } from './http/rate-limit';
import { createIdempotency } from './http/idempotency';
import { parserErrorBody } from './http/error-handler';

async function main(): Promise<void> {
  const env = loadRestEnvironment();
  const logger = createLogger('rest', env.LOG_LEVEL);
  // The caller of each request is established here in either mode (http/caller.ts): the token's account or the key's
  // verdict, kept under the generations this one connection reads once per request (ADR 0019).
  const generations = createGenerationReader(env, logger);
  const credentials = createCredentialChecks(env, 'rest', generations);
  const gateway = await createGateway(env, logger, generations);
  // Plans warmed before the first request: each fixed document dry-run once (no subgraph is called).
  const warmUpStarted = Date.now();
  const planned = await gateway.warmUp(ALL_OPERATIONS);
  logger.info(
    { planned, operations: ALL_OPERATIONS.length, durationMs: Date.now() - warmUpStarted },
    'operation plans warmed',
  );
  const rateLimiting = createRateLimiting(env, logger);
  const idempotency = createIdempotency(env, logger);
  // Serve only once the shared limits and the idempotency store are reachable (a keyed POST that came first would run
  // without its guarantee), bounded: a Redis outage must not keep the facade down.
  const [limitsReady, idempotencyReady] = await Promise.all([rateLimiting.ready(3_000), idempotency.ready(3_000)]);
  if (!limitsReady) logger.warn('rate limiter: Redis not reachable at start; limiting in-process until it is');
  if (!idempotencyReady)
    logger.warn('idempotency: Redis not reachable at start; keyed POSTs run per IDEMPOTENCY_FAIL_MODE until it is');
  const app = createRestApp({ env, logger, gateway, callers: credentials.callers, rateLimiting, idempotency });
  await runService({
    name: 'rest',
    host: env.HOST,
    port: env.PORT,
    metricsPort: env.METRICS_PORT,
    logger,
    handler: app,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    shutdownDelayMs: env.SHUTDOWN_DELAY_MS,
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    parserErrorBody: parserErrorBody(env),
    onShutdown: async () => {
      await gateway.close();
      await credentials.close();
      await generations?.close();
      await rateLimiting.close();
      await idempotency.close();
    },
  });
}

/** GATEWAY_MODE: the gateway process over HTTP (remote), or its executor in this process (embedded). */
async function createGateway(
  env: RestEnvironment,
  logger: Logger,
  generations: GenerationReader | undefined,
): Promise<Gateway> {
  if (env.GATEWAY_MODE === 'remote')
    return new GatewayClient(env.GATEWAY_URL, env.GATEWAY_TIMEOUT_MS, facadeProofHeaders(env.jwtSecret));
  const embedded = await EmbeddedGateway.start({
    supergraphSdl: readFileSync(env.SUPERGRAPH_PATH ?? join(__dirname, 'supergraph.graphql'), 'utf8'),
    subgraphUrls: subgraphUrlsOf(env),
    subgraphTimeoutMs: env.SUBGRAPH_TIMEOUT_MS,
    commitTimeoutMs: env.WRITE_COMMIT_TIMEOUT_MS,
    subgraphSecret: env.subgraphSecret,
    dedupReads: env.SUBGRAPH_DEDUP,
    logger,
    readCache: createReadCache(env, logger, generations),
  });
  logger.info({ subgraphs: subgraphUrlsOf(env) }, 'gateway embedded: operations run in this process');
  return embedded;
}

main().catch((error: unknown) => {
  process.stderr.write(`rest failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
