/**
 * Renders an AppError as the deployment's one error body shape (docs/interface.md#error-formats), or as RFC 9457
 * problem details.
 */
import { AppError, OUTCOME_UNKNOWN_MESSAGE } from './app-error';
import { ERROR_CODES } from './error-codes';
import { localizedMessages, pickLanguage } from './messages';

export const ERROR_FORMATS = ['detail', 'envelope', 'flat', 'problem'] as const;
export type ErrorFormat = (typeof ERROR_FORMATS)[number];

/** RFC 9457's media type: the `problem` format's, and what a client names in `Accept` to get it from any deployment. */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/**
 * Problem type URIs: one per registry errorCode, an identifier (RFC 9457 3.1.1 lets it be non-resolvable); the
 * OpenAPI document lists them with their meaning. Absolute, so that no client has to resolve it against a base URI.
 */
export const PROBLEM_TYPE_BASE = 'https://api-platform.example/problems/';
export const problemTypeOf = (errorCode: string): string =>
  `${PROBLEM_TYPE_BASE}${errorCode.toLowerCase().replace(/_/g, '-')}`;

export interface RenderOptions {
  format: ErrorFormat;
  validationStatus: 400 | 422;
  loginFailureStatus: 400 | 401;
  correlationId?: string | undefined;
  acceptLanguage?: string | undefined;
  /** `problem`: the occurrence's URI reference (`instance`), the request path. */
  instance?: string | undefined;
}

export interface RenderedError {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** `application/json`, or `application/problem+json` for the `problem` format. */
  contentType: string;
}

/** `title` of each problem type: a short summary that does not change from occurrence to occurrence (RFC 9457 3.1.3). */
const PROBLEM_TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  408: 'Request timeout',
  409: 'Conflict',
  412: 'Precondition failed',
  413: 'Content too large',
  415: 'Unsupported media type',
  422: 'Unprocessable content',
  428: 'Precondition required',
  429: 'Too many requests',
  431: 'Request header fields too large',
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
};
const TITLE_OF_CODE: Partial<Record<string, string>> = {
  INVALID_INPUT: 'Validation failed',
  LOGIN_FAILED: 'Login failed',
  OUTCOME_UNKNOWN: 'Outcome unknown',
};

const GENERIC_5XX: Record<number, string> = {
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service temporarily unavailable',
  504: 'Gateway timeout',
};

export function renderError(error: unknown, options: RenderOptions): RenderedError {
  const appError =
    error instanceof AppError
      ? error
      : new AppError('INTERNAL_SERVER_ERROR', 'Internal server error', { cause: error });
  const status = statusOf(appError, options);
  // 5xx never carries the original text: a generic message in every format (an unknown outcome: its fixed guidance).
  const message =
    appError.code === 'OUTCOME_UNKNOWN'
      ? OUTCOME_UNKNOWN_MESSAGE
      : status >= 500
        ? (GENERIC_5XX[status] ?? 'Internal server error')
        : appError.message;
  const headers = { ...(appError.headers ?? {}) };
  const errorCode = ERROR_CODES[appError.code].errorCode;
  const json = (body: Record<string, unknown>): RenderedError => ({
    status,
    headers,
    body,
    contentType: 'application/json',
  });
  switch (options.format) {
    case 'problem':
      return {
        status,
        headers,
        contentType: PROBLEM_MEDIA_TYPE,
        body: {
          type: problemTypeOf(errorCode),
          title: TITLE_OF_CODE[errorCode] ?? PROBLEM_TITLES[status] ?? 'Error',
          status,
          detail: message,
          ...(options.instance ? { instance: options.instance } : {}),
          ...(appError.details && status < 500 ? { errors: appError.details } : {}),
          code: errorCode,
          ...(options.correlationId ? { request_id: options.correlationId } : {}),
        },
      };
    case 'envelope': {
      const language = pickLanguage(options.acceptLanguage);
      const localized = localizedMessages[errorCode];
      return json({
        error: {
          code: status,
          message,
          ...(appError.details && status < 500 ? { details: appError.details } : {}),
          errorCode,
          ...(language && localized ? { localizedMessage: { [language]: localized[language] } } : {}),
          ...(options.correlationId ? { correlationId: options.correlationId } : {}),
        },
      });
    }
    case 'flat': {
      if (appError.code === 'BAD_USER_INPUT') {
        return json({ code: 'VALIDATION_ERROR', message, details: { errors: appError.details ?? [] } });
      }
      if (appError.code === 'NOT_FOUND' && appError.resource) {
        return json({
          code: 'RESOURCE_NOT_FOUND',
          message,
          details: { resource_type: appError.resource.type, resource_id: appError.resource.id },
        });
      }
      return json({ code: `HTTP_${status}`, message });
    }
    case 'detail':
    default:
      return json({ detail: message });
  }
}

function statusOf(error: AppError, options: RenderOptions): number {
  if (error.code === 'BAD_USER_INPUT') return options.validationStatus;
  if (error.code === 'LOGIN_FAILED') return options.loginFailureStatus;
  return error.status;
}
