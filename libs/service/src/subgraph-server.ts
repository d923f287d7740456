/** Builds a subgraph's ApolloServer the same way everywhere: federation schema, masked errors, no landing page in production. */
import { ApolloServer, type BaseContext } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { buildSubgraphSchema, type GraphQLResolverMap } from '@apollo/subgraph';
import { parse } from 'graphql';
import { maskGraphQLError } from '@platform/errors';

export function createSubgraphServer<TContext extends BaseContext>(
  typeDefs: string,
  resolvers: GraphQLResolverMap<TContext>,
  options: { production: boolean },
): ApolloServer<TContext> {
  return new ApolloServer<TContext>({
    schema: buildSubgraphSchema([{ typeDefs: parse(typeDefs), resolvers: resolvers as GraphQLResolverMap<unknown> }]),
    formatError: maskGraphQLError,
    includeStacktraceInErrorResponses: false,
    introspection: !options.production,
    csrfPrevention: true,
    // No federated tracing: nothing reports to Apollo, and traces cost CPU on every request.
    plugins: [ApolloServerPluginLandingPageDisabled(), ApolloServerPluginInlineTraceDisabled()],
  });
}
