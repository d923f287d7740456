/**
 * How a subgraph reports what went wrong: database errors mapped once for every collection (a unique index's refusal
 * is CONFLICT, the database down or timing out SERVICE_UNAVAILABLE), everything else masked by the shared
 * formatError; and every server-side failure logged with its cause, since the response never carries it.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, maskGraphQLError } from '@platform/errors';
import { graphqlFaultLogPlugin } from '@platform/service';
import type { Logger } from '@platform/logging';
import { databaseAppError } from '@platform/mongo';

const causeOf = (error: unknown): unknown => (error instanceof GraphQLError ? error.originalError : error);

/** The AppError a resolver's failure stands for, when it is one (thrown by the domain, or a known database error). */
function appErrorOf(error: unknown): AppError | undefined {
  const cause = causeOf(error);
  return cause instanceof AppError ? cause : databaseAppError(cause);
}

/** Apollo `formatError` of every subgraph: database errors as AppErrors, then the shared masking. */
export function formatSubgraphError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  return maskGraphQLError(formatted, appErrorOf(error) ?? error);
}

/** Logs each error that becomes a 5xx with its cause (libs/service graphqlFaultLogPlugin), database errors mapped. */
export function serverFaultLogPlugin<TContext extends { logger?: Logger }>(
  fallback: Logger,
): ApolloServerPlugin<TContext> {
  return graphqlFaultLogPlugin<TContext>(fallback, { formatError: formatSubgraphError, appErrorOf: databaseAppError });
}
