/** The process runtime every service shares: HTTP listener, health and readiness, graceful shutdown, GraphQL over node:http. */
export { runService, type RunningService, type ServiceOptions } from './run-service';
export { createGraphQLHandler, type GraphQLHandlerOptions } from './graphql-handler';
export { authenticateRequest } from './request-auth';
export { InternalGraphQLClient } from './internal-client';
export { readBody, BodyTooLargeError } from './read-body';
export {
  createSubgraphServer,
  startSubgraph,
  type BaseSubgraphContext,
  type StartedSubgraph,
} from './subgraph-server';
export {
  runSubgraph,
  type SubgraphProcess,
  type SubgraphEnvironment,
  type SubgraphApp,
} from './run-subgraph';
export { MongoCommandStats } from './mongo-command-stats';
export {
  DEFAULT_GRAPHQL_LIMITS,
  graphqlLimits,
  type GraphQLLimits,
  type GraphQLLimitsSetup,
} from './graphql-limits';
export { graphqlMetricsPlugin } from './graphql-metrics';
export { startMetricsListener, type MetricsListener } from './metrics-listener';
