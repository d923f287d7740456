/**
 * What every GraphQL server process shares (the gateway and the four subgraphs, never the REST facade): GraphQL over
 * node:http, GraphQL Armor's operation limits, and the subgraph kit (Apollo subgraph server, MongoDB, process life).
 */
export { createGraphQLHandler, type GraphQLHandlerOptions } from './graphql-handler';
export { authenticateRequest } from './request-auth';
export {
  createSubgraphServer,
  startSubgraph,
  type BaseSubgraphContext,
  type StartedSubgraph,
  type SubgraphAppDeps,
} from './subgraph-server';
export {
  runSubgraph,
  type SubgraphProcess,
  type SubgraphEnvironment,
  type SubgraphApp,
} from './run-subgraph';
export { MongoCommandStats } from './mongo-command-stats';
export { ReadCacheTracking } from './read-cache-invalidation';
export {
  DEFAULT_GRAPHQL_LIMITS,
  graphqlLimits,
  type GraphQLLimits,
  type GraphQLLimitsSetup,
} from './graphql-limits';
export { formatSubgraphError, serverFaultLogPlugin } from './subgraph-errors';
export type { EntityReference } from './entity-reference';
export {
  RecordService,
  type RecordServiceOptions,
  type RecordParent,
  type RecordWriteArgs,
  type RecordEvents,
} from './record-service';
export {
  typeResolvers,
  viewResolvers,
  entityResolvers,
  answeredWrite,
  type TypeResolverOptions,
} from './resource-resolvers';
export { parseWrite, checkAdminOnly, type ParsedWrite } from './resource-writes';
export {
  entityReference,
  recordQueries,
  recordMutations,
  userRecordsResolvers,
  type RecordOperations,
} from './record-resolvers';
export { byIdLoader, groupedLoaders } from './record-loaders';
