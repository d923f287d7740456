/** Parses a service's environment once at start with zod: every problem is printed, then the process exits 1. */
export { loadEnvironment, EnvironmentError, settingsFromEnvironment } from './load-environment';
export {
  booleanFlag,
  commonEnvironment,
  port,
  metricsPort,
  compressionMinBytes,
  host,
  isProduction,
  graphqlLimitsOf,
  type CommonEnvironment,
} from './common-environment';
export {
  loadServiceEnvironment,
  resolveIdempotencySecret,
  resolveJwtSecret,
  resolveSecrets,
  resolveSubgraphSecret,
  resolveWebhookSecretsKey,
  withWebhookSecretsKey,
  type ResolvedSecrets,
} from './jwt-secret';
export {
  supergraphEnvironment,
  supergraphServiceEnvironment,
  subgraphUrlsOf,
  type SupergraphEnvironment,
} from './supergraph-environment';
export { mongoEnvironment } from './mongo-environment';
export {
  closeRedis,
  connectRedis,
  queueConnection,
  redisConnectionOptions,
  redisReady,
  redisUrlSchema,
  writesReplicated,
  type RedisConnection,
} from './redis-connection';
export { webhooksEnvironment } from './webhooks-environment';
export { eventsRelayEnvironment, crashAfterWriteOf, type EventsRelayEnvironment } from './events-environment';
