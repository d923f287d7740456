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
import { AccessTokenVerifier, type RequestCaller } from '@platform/auth';
import type { Logger } from '@platform/logging';
import { createGraphQLHandler } from './graphql-handler';
import type { MongoCommandStats } from './mongo-command-stats';
import { authenticateRequest } from './request-auth';
import { formatSubgraphError, serverFaultLogPlugin } from './subgraph-errors';

export function createSubgraphServer<TContext extends BaseContext>(
  typeDefs: string,
  resolvers: GraphQLResolverMap<TContext>,
  options: { production: boolean },
): ApolloServer<TContext> {
  return new ApolloServer<TContext>({
    schema: buildSubgraphSchema([
      { typeDefs: parse(typeDefs), resolvers: resolvers as GraphQLResolverMap<unknown> },
    ]),
    formatError: formatSubgraphError,
    includeStacktraceInErrorResponses: false,
    introspection: !options.production,
    csrfPrevention: true,
    // No federated tracing (nothing reports to Apollo) and no cache-control hints (no type declares one; REST sets its
    // own Cache-Control): both hook every resolved field, i.e. cost CPU on every request.
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
      ApolloServerPluginCacheControlDisabled(),
    ],
  });
}

/** What every subgraph's request context starts with: the caller (or why its credential failed), request id, logger. */
export interface BaseSubgraphContext extends BaseContext, RequestCaller {
  logger: Logger;
}

export interface StartedSubgraph<TContext extends BaseContext> {
  server: ApolloServer<TContext>;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

/**
 * Builds, starts and serves a subgraph: the Apollo server above, the caller authenticated from its bearer token,
 * and the service's own context fields added per request (loaders, services).
 */
export async function startSubgraph<TContext extends BaseSubgraphContext>(options: {
  typeDefs: string;
  resolvers: GraphQLResolverMap<TContext>;
  production: boolean;
  jwtSecret: string;
  maxBodyBytes: number;
  logger: Logger;
  context: (base: BaseSubgraphContext) => TContext;
  /** Per-request MongoDB command counts in `extensions.mongoCommands` (runSubgraph gives it outside production). */
  commandStats?: MongoCommandStats | undefined;
}): Promise<StartedSubgraph<TContext>> {
  const server = createSubgraphServer<TContext>(options.typeDefs, options.resolvers, {
    production: options.production,
  });
  server.addPlugin(serverFaultLogPlugin<TContext>(options.logger));
  const stats = options.commandStats;
  if (stats) server.addPlugin(stats.plugin<TContext>());
  await server.start();
  const tokens = new AccessTokenVerifier(options.jwtSecret);
  const handler = createGraphQLHandler<TContext>({
    server,
    maxBodyBytes: options.maxBodyBytes,
    logger: options.logger,
    context: async (req, requestId, logger) =>
      options.context({ ...authenticateRequest(req.headers, tokens), requestId, logger }),
  });
  return { server, handler: stats ? stats.wrap(handler) : handler };
}
