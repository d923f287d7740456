/** One registry of error codes, one AppError type, and the one mapping from errors to GraphQL and to HTTP bodies. */
export { ERROR_CODES, type ErrorCode, isErrorCode } from './error-codes';
export {
  AppError,
  type FieldError,
  type ResourceRef,
  validationError,
  notFound,
  outcomeUnknown,
  OUTCOME_UNKNOWN_MESSAGE,
} from './app-error';
export { graphqlExtensions, fromGraphQLError, maskGraphQLError, type GraphQLErrorLike } from './graphql-errors';
export {
  renderError,
  ERROR_FORMATS,
  PROBLEM_MEDIA_TYPE,
  PROBLEM_TYPE_BASE,
  problemTypeOf,
  type ErrorFormat,
  type RenderOptions,
  type RenderedError,
} from './render-error';
export { localizedMessages, SUPPORTED_LANGUAGES, pickLanguage } from './messages';
