/**
 * Logs what a GraphQL server answers as a 5xx with its cause, since the answer is masked: the gateway, the facade's
 * embedded executor and every subgraph (whose formatError and database mapping it is given).
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, ERROR_CODES, isErrorCode, maskGraphQLError } from '@platform/errors';
import type { Logger } from '@platform/logging';

const causeOf = (error: unknown): unknown => (error instanceof GraphQLError ? error.originalError : error);

export interface FaultLogOptions {
  /** The server's formatError: what the client is answered decides whether an error is a fault. */
  formatError?: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /** The AppError an error stands for (a subgraph's database errors), beyond one thrown as such. */
  appErrorOf?: (error: unknown) => AppError | undefined;
}

/**
 * Each error answered with a 5xx code, one line with the request id: an unavailable dependency as a warning with its
 * cause, anything else as an error with its cause and stack (a bug, an unclassified driver error, a subgraph's answer
 * the gateway cannot read); also a context that failed to build and an unexpected failure of the request pipeline.
 * Client errors are answers, not faults.
 */
export function graphqlFaultLogPlugin<TContext extends { logger?: Logger | undefined }>(
  fallback: Logger,
  options: FaultLogOptions = {},
): ApolloServerPlugin<TContext> {
  const formatError = options.formatError ?? maskGraphQLError;
  const appErrorOf = (error: unknown): AppError | undefined => {
    const cause = causeOf(error);
    return cause instanceof AppError ? cause : options.appErrorOf?.(cause);
  };
  const statusOf = (error: GraphQLError): number => {
    const code = formatError(error.toJSON(), error).extensions?.['code'];
    return isErrorCode(code) ? ERROR_CODES[code].status : 400;
  };
  const isFault = (error: unknown): boolean =>
    error instanceof AppError ? error.status >= 500 : !(error instanceof GraphQLError) || statusOf(error) >= 500;
  return {
    async contextCreationDidFail({ error }) {
      if (isFault(error)) fallback.error({ err: error }, 'request context failed');
    },
    async unexpectedErrorProcessingRequest({ requestContext, error }) {
      const logger = (requestContext.contextValue as TContext | undefined)?.logger ?? fallback;
      logger.error({ err: error }, 'request failed unexpectedly');
    },
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue, operationName }) {
          const logger = (contextValue as TContext | undefined)?.logger ?? fallback;
          for (const error of errors) {
            if (statusOf(error) < 500) continue;
            const appError = appErrorOf(error);
            const fields = {
              err: appError?.cause ?? causeOf(error) ?? error,
              ...(operationName ? { operation: operationName } : {}),
              ...(error.path ? { path: error.path.join('.') } : {}),
            };
            if ((appError?.code ?? error.extensions['code']) === 'SERVICE_UNAVAILABLE')
              logger.warn(fields, 'dependency unavailable');
            else logger.error(fields, 'request failed');
          }
        },
      };
    },
  };
}
