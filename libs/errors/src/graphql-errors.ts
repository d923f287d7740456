/**
 * AppError <-> the GraphQL error on the wire: a server formats an AppError as `message` + `extensions` (code,
 * details, resource, retryAfter) once, in its formatError; a caller reads that back into an AppError once
 * (fromGraphQLError). Inside a process an error is an AppError; between processes it is the wire form.
 */
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, type FieldError } from './app-error';
import { isErrorCode } from './error-codes';

export interface GraphQLErrorLike {
  message: string;
  path?: ReadonlyArray<string | number>;
  extensions?: Record<string, unknown>;
}

/** The `extensions` an AppError is carried in on the wire. */
export function graphqlExtensions(error: AppError): Record<string, unknown> {
  return {
    code: error.code,
    ...(error.details ? { details: error.details } : {}),
    ...(error.resource ? { resourceType: error.resource.type, resourceId: error.resource.id } : {}),
    // Seconds until a refused request may be tried again (RATE_LIMITED, SERVICE_UNAVAILABLE): Retry-After in REST.
    ...(error.headers?.['retry-after'] ? { retryAfter: Number(error.headers['retry-after']) } : {}),
  };
}

const GENERIC_INTERNAL = 'Internal server error';

/**
 * Apollo `formatError` for every server: domain codes pass through, GraphQL's own request errors are client
 * errors, anything else becomes a generic INTERNAL_SERVER_ERROR with no stack, driver text or configuration.
 */
export function maskGraphQLError(formatted: GraphQLFormattedError, original: unknown): GraphQLFormattedError {
  const code = formatted.extensions?.['code'];
  const cause = original instanceof GraphQLError ? original.originalError : original;
  if (cause instanceof AppError) {
    return { ...formatted, message: cause.message, extensions: graphqlExtensions(cause) };
  }
  if (isErrorCode(code) && code !== 'INTERNAL_SERVER_ERROR') {
    const { stacktrace: _drop, exception: _drop2, ...rest } = formatted.extensions ?? {};
    return { ...formatted, extensions: rest };
  }
  if (
    code === 'GRAPHQL_VALIDATION_FAILED' ||
    code === 'GRAPHQL_PARSE_FAILED' ||
    code === 'PERSISTED_QUERY_NOT_FOUND' ||
    code === 'OPERATION_RESOLUTION_FAILURE'
  ) {
    return {
      message: formatted.message,
      ...(formatted.locations ? { locations: formatted.locations } : {}),
      extensions: { code },
    };
  }
  return {
    message: GENERIC_INTERNAL,
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  };
}

/**
 * A caller's view of a GraphQL error (the REST facade, or a subgraph calling another): known codes keep their
 * meaning, everything else is a 500. The callers send fixed operation documents, so a document the server cannot
 * parse or validate (GRAPHQL_VALIDATION_FAILED: the schema and the caller disagree) is a server fault, not the client's.
 */
export function fromGraphQLError(error: GraphQLErrorLike): AppError {
  const extensions = error.extensions ?? {};
  const code = extensions['code'];
  if (!isErrorCode(code) || code === 'INTERNAL_SERVER_ERROR') {
    return new AppError('INTERNAL_SERVER_ERROR', GENERIC_INTERNAL, {
      cause: `${String(code)}: ${error.message}`,
    });
  }
  const details = Array.isArray(extensions['details']) ? (extensions['details'] as FieldError[]) : undefined;
  const resourceType = extensions['resourceType'];
  const resourceId = extensions['resourceId'];
  const retryAfter = extensions['retryAfter'];
  return new AppError(code, error.message, {
    ...(details ? { details } : {}),
    ...(typeof retryAfter === 'number' && Number.isInteger(retryAfter) && retryAfter > 0
      ? { headers: { 'retry-after': String(retryAfter) } }
      : {}),
    ...(typeof resourceType === 'string' && (typeof resourceId === 'string' || typeof resourceId === 'number')
      ? { resource: { type: resourceType, id: String(resourceId) } }
      : {}),
  });
}
