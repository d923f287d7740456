/** Entry point of the gateway process. */
// First: tracing hooks the modules the imports below load (libs/tracing/src/tracing.ts).
import './tracing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { graphqlLimitsOf, isProduction, subgraphUrlsOf } from '@platform/config';
import { createLogger } from '@platform/logging';
import { createCredentialChecks, createGenerationReader, createReadCache } from '@platform/federation';
import { facadeProofChecker } from '@platform/rate-limit';
import { runService } from '@platform/service';
import { loadGatewayEnvironment } from './environment';
import { createGatewayApp } from './app';
import { createGatewayRateLimiter } from './gateway-rate-limit';
import { loadManifest, RedisApqCache } from './persisted-operations';

async function main(): Promise<void> {
  const env = loadGatewayEnvironment();
  const logger = createLogger('gateway', env.LOG_LEVEL);
  const supergraphSdl = readFileSync(env.SUPERGRAPH_PATH ?? join(__dirname, 'supergraph.graphql'), 'utf8');
  // One connection to the generations: the credential checks and the read cache read them once per request.
  const generations = createGenerationReader(env, logger);
  const credentials = createCredentialChecks(env, 'gateway', generations);
  const rateLimiter = createGatewayRateLimiter({
    redisUrl: env.REDIS_URL,
    points: env.RATE_LIMIT_POINTS,
    windowSeconds: env.RATE_LIMIT_WINDOW,
    failMode: env.RATE_LIMIT_FAIL_MODE,
    commandTimeoutMs: env.REDIS_COMMAND_TIMEOUT_MS,
    jwtSecret: env.jwtSecret,
    trustProxy: env.TRUST_PROXY,
    logger,
  });
  if (!(await rateLimiter.ready(3_000)))
    logger.warn('rate limiter: Redis not reachable at start; limiting in-process until it is');
  const production = isProduction(env);
  const trustedDocuments = env.TRUSTED_DOCUMENTS
    ? loadManifest(env.TRUSTED_DOCUMENTS_PATH ?? join(__dirname, 'trusted-documents.json'))
    : undefined;
  if (trustedDocuments)
    logger.info({ operations: trustedDocuments.size }, 'trusted documents: only listed operations run');
  const apqCache =
    env.REDIS_URL && !trustedDocuments
      ? new RedisApqCache({
          redisUrl: env.REDIS_URL,
          ttlSeconds: env.APQ_CACHE_TTL_SECONDS,
          maxDocumentBytes: env.APQ_MAX_DOCUMENT_BYTES,
          maxEntries: env.APQ_MAX_ENTRIES,
          maxBytes: env.APQ_MAX_BYTES,
          clientMaxBytes: env.APQ_CLIENT_MAX_BYTES,
          // REDIS_COMMAND_TIMEOUT_MS is tuned for the rate limiter (on every request); a registration is stored after the
          // answer, and a lookup happens only for a hash-only request, so a busy Redis may take longer before a miss.
          commandTimeoutMs: Math.max(env.REDIS_COMMAND_TIMEOUT_MS, 500),
          logger,
        })
      : undefined;
  if (apqCache && !(await apqCache.ready(3_000)))
    logger.warn('APQ cache: Redis not reachable at start; every hash misses until it is');
  const app = await createGatewayApp({
    supergraphSdl,
    subgraphUrls: subgraphUrlsOf(env),
    logger,
    production,
    introspection: env.GRAPHQL_INTROSPECTION,
    maxBodyBytes: env.MAX_BODY_BYTES,
    subgraphTimeoutMs: env.SUBGRAPH_TIMEOUT_MS,
    commitTimeoutMs: env.WRITE_COMMIT_TIMEOUT_MS,
    callers: credentials.callers,
    limits: graphqlLimitsOf(env),
    subgraphSecret: env.subgraphSecret,
    dedupReads: env.SUBGRAPH_DEDUP,
    trustProxy: env.TRUST_PROXY,
    corsOrigins: env.CORS_ORIGINS,
    rateLimiter,
    isFacade: facadeProofChecker(env.jwtSecret),
    ide: {
      enabled: env.GRAPHIQL === 'on' || (env.GRAPHIQL === 'auto' && !production),
      password: env.GRAPHIQL_PASSWORD,
      assetsDir: join(__dirname, 'graphiql'),
    },
    apqCache,
    trustedDocuments,
    readCache: createReadCache(env, logger, generations),
    compressionMinBytes: env.COMPRESSION_MIN_BYTES,
  });
  await runService({
    name: 'gateway',
    host: env.HOST,
    port: env.PORT,
    metricsPort: env.METRICS_PORT,
    logger,
    handler: app.handler,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    shutdownDelayMs: env.SHUTDOWN_DELAY_MS,
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    onShutdown: async () => {
      // Until the metrics listener exports app.fieldUsage, the counts since start are at least in the log.
      logger.info({ usage: app.fieldUsage.snapshot() }, 'graphql field usage since start');
      await app.server.stop();
      await credentials.close();
      await app.close();
      await generations?.close();
      await rateLimiter.close();
      await apqCache?.close();
    },
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
