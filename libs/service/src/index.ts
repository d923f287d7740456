/** The process runtime every service shares (the REST facade too): HTTP listener, health and readiness, graceful shutdown, bodies, internal GraphQL calls. */
export { runService, type ParserErrorStatus, type RunningService, type ServiceOptions } from './run-service';
export { InternalGraphQLClient } from './internal-client';
export {
  GraphQLHttpClient,
  UpstreamUnavailableError,
  dataOf,
  fromUpstreamError,
  isMutation,
  unavailableError,
  type GraphQLHttpAnswer,
  type GraphQLHttpClientOptions,
  type GraphQLHttpRequest,
  type GraphQLResponse,
} from './graphql-http-client';
export { readBody, BodyTooLargeError } from './read-body';
export { graphqlMetricsPlugin } from './graphql-metrics';
export { graphqlFaultLogPlugin, type FaultLogOptions } from './graphql-fault-log';
export { startMetricsListener, type MetricsListener } from './metrics-listener';
export { responseCompression, type CompressionMiddleware } from './response-compression';
