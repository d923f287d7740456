/** Builds a subgraph's ApolloServer the same way everywhere: federation schema, masked errors, no landing page in production. */
import { ApolloServer, type BaseContext } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { buildSubgraphSchema, type GraphQLResolverMap } from '@apollo/subgraph';
import { parse } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from 'mongodb';
import {
  AccessTokenVerifier,
  CLIENT_IP_HEADER,
  FACADE_CALL_HEADER,
  type RequestCaller,
  type Secrets,
} from '@platform/auth';
import type { Logger } from '@platform/logging';
import { Deadline, withDeadline } from '@platform/contracts';
import { createGraphQLHandler } from './graphql-handler';
import { DateTimeScalar } from './date-time-scalar';
import { graphqlMetricsPlugin } from '@platform/service';
import { DEFAULT_GRAPHQL_LIMITS, graphqlLimits, type GraphQLLimits } from './graphql-limits';
import type { MongoCommandStats } from './mongo-command-stats';
import { authenticateRequest } from './request-auth';
import { formatSubgraphError, serverFaultLogPlugin } from './subgraph-errors';
import type { ReadCacheTracking } from './read-cache-invalidation';
import type { EventOutbox } from '@platform/mongo';

export function createSubgraphServer<TContext extends BaseContext>(
  typeDefs: string,
  resolvers: GraphQLResolverMap<TContext>,
  options: { production: boolean; limits?: GraphQLLimits | undefined },
): ApolloServer<TContext> {
  const isFacadeCall = (context: TContext) => (context as { facadeCall?: boolean }).facadeCall === true;
  // Subgraphs answer only the gateway (SUBGRAPH_SECRET), and still hold the same limits as the gateway: a leaked
  // secret or a bug in a caller must not turn one request into unbounded work.
  const limits = graphqlLimits<TContext>(options.limits ?? DEFAULT_GRAPHQL_LIMITS, {
    production: options.production,
    isFacadeCall,
  });
  return new ApolloServer<TContext>({
    schema: buildSubgraphSchema([
      // DateTime (scalars.graphql, in every subgraph's SDL): RFC 3339 strings out, and in (date-time-scalar.ts).
      {
        typeDefs: parse(typeDefs),
        resolvers: { DateTime: DateTimeScalar, ...(resolvers as GraphQLResolverMap<unknown>) },
      },
    ]),
    formatError: formatSubgraphError,
    includeStacktraceInErrorResponses: false,
    // SIGTERM belongs to the service runtime (libs/service run-service.ts), which drains and then stops this server.
    stopOnTerminationSignals: false,
    introspection: !options.production,
    csrfPrevention: true,
    parseOptions: { maxTokens: 10_000 },
    validationRules: limits.validationRules,
    // No federated tracing (nothing reports to Apollo) and no cache-control hints (no type declares one; REST sets its
    // own Cache-Control): both hook every resolved field, i.e. cost CPU on every request.
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      graphqlMetricsPlugin<TContext>(),
      ...limits.plugins,
    ],
  });
}

/** What every subgraph's request context starts with: the caller (or why its credential failed), request id, logger. */
export interface BaseSubgraphContext extends BaseContext, RequestCaller {
  logger: Logger;
}

/** What every subgraph app is built from: runSubgraph gives these to each one, tests build them in-process. */
export interface SubgraphAppDeps {
  db: Db;
  logger: Logger;
  jwtSecret: Secrets;
  production: boolean;
  maxBodyBytes: number;
  /** Operation limits (GRAPHQL_MAX_*); the defaults when absent. */
  limits?: GraphQLLimits | undefined;
  /** Development only: report each request's MongoDB commands in `extensions.mongoCommands`. */
  commandStats?: MongoCommandStats | undefined;
  /**
   * This subgraph's generations (runSubgraph gives it, with `db` tracked through it): what each request wrote is bumped
   * before its response leaves, and a query's answer names what it read; absent (no REDIS_URL, tests in-process):
   * nothing bumped, nothing named.
   */
  tracking?: ReadCacheTracking | undefined;
  /** This subgraph's change log (ADR 0023), when it records events (EVENTS on); absent: writes record none. */
  events?: EventOutbox | undefined;
}

export interface StartedSubgraph<TContext extends BaseContext> {
  server: ApolloServer<TContext>;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

/** What a subgraph adds to the base context: its services, and its DataLoaders when it has any. */
export interface SubgraphContextFields {
  services: object;
  loaders?: object;
}

/**
 * Builds, starts and serves a subgraph: the Apollo server above, the caller authenticated from its bearer token,
 * and the service's own context fields: `services` (made once, shared) and `loaders` (made per request, since a
 * DataLoader batches and caches within one request only). Takes the app's deps as they come.
 */
export async function startSubgraph<TContext extends BaseSubgraphContext & SubgraphContextFields>(
  options: Omit<SubgraphAppDeps, 'db'> & {
    typeDefs: string;
    resolvers: GraphQLResolverMap<TContext>;
    services: TContext['services'];
    loaders?: () => NonNullable<TContext['loaders']>;
  },
): Promise<StartedSubgraph<TContext>> {
  const { services, loaders } = options;
  const ownContext = (base: BaseSubgraphContext) =>
    ({ ...base, services, ...(loaders ? { loaders: loaders() } : {}) }) as TContext;
  const server = createSubgraphServer<TContext>(options.typeDefs, options.resolvers, {
    production: options.production,
    limits: options.limits,
  });
  server.addPlugin(serverFaultLogPlugin<TContext>(options.logger));
  const stats = options.commandStats;
  if (stats) server.addPlugin(stats.plugin<TContext>());
  if (options.tracking) server.addPlugin(options.tracking.plugin<TContext>());
  await server.start();
  const tokens = new AccessTokenVerifier(options.jwtSecret);
  const handler = createGraphQLHandler<TContext>({
    server,
    maxBodyBytes: options.maxBodyBytes,
    logger: options.logger,
    // The subgraph-secret guard in front of this handler is what makes the client-IP and facade headers trustworthy.
    context: async (req, requestId, logger) => {
      const clientIp = req.headers[CLIENT_IP_HEADER];
      return ownContext({
        ...authenticateRequest(req.headers, tokens),
        requestId,
        logger,
        clientIp: typeof clientIp === 'string' && clientIp !== '' ? clientIp : undefined,
        facadeCall: req.headers[FACADE_CALL_HEADER] === '1',
      });
    },
  });
  // The caller's deadline (ADR 0020: trusted, like the headers above, behind the subgraph-secret guard) is the scope
  // every write step of the request checks before it starts.
  const tracked = options.tracking ? options.tracking.wrap(handler) : handler;
  const withCallerDeadline = (req: IncomingMessage, res: ServerResponse) =>
    withDeadline(Deadline.fromHeaders(req.headers), () => tracked(req, res));
  return { server, handler: stats ? stats.wrap(withCallerDeadline) : withCallerDeadline };
}
