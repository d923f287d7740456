/** Renders an AppError as the deployment's one error body shape (CONTRACT.md "Errors"). */
import { AppError } from './app-error';
import { ERROR_CODES } from './error-codes';
import { localizedMessages, pickLanguage } from './messages';

export type ErrorFormat = 'detail' | 'envelope' | 'flat';

export interface RenderOptions {
  format: ErrorFormat;
  validationStatus: 400 | 422;
  loginFailureStatus: 400 | 401;
  correlationId?: string | undefined;
  acceptLanguage?: string | undefined;
}

export interface RenderedError {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

const GENERIC_5XX: Record<number, string> = {
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service temporarily unavailable',
  504: 'Gateway timeout',
};

export function renderError(error: unknown, options: RenderOptions): RenderedError {
  const appError =
    error instanceof AppError ? error : new AppError('INTERNAL_SERVER_ERROR', 'Internal server error', { cause: error });
  const status = statusOf(appError, options);
  // 5xx never carries the original text: a generic message in every format.
  const message = status >= 500 ? (GENERIC_5XX[status] ?? 'Internal server error') : appError.message;
  const headers = { ...(appError.headers ?? {}) };
  const errorCode = ERROR_CODES[appError.code].errorCode;
  switch (options.format) {
    case 'envelope': {
      const language = pickLanguage(options.acceptLanguage);
      const localized = localizedMessages[errorCode];
      return {
        status,
        headers,
        body: {
          error: {
            code: status,
            message,
            ...(appError.details && status < 500 ? { details: appError.details } : {}),
            errorCode,
            ...(language && localized ? { localizedMessage: { [language]: localized[language] } } : {}),
            ...(options.correlationId ? { correlationId: options.correlationId } : {}),
          },
        },
      };
    }
    case 'flat': {
      if (appError.code === 'BAD_USER_INPUT') {
        return {
          status,
          headers,
          body: { code: 'VALIDATION_ERROR', message, details: { errors: appError.details ?? [] } },
        };
      }
      if (appError.code === 'NOT_FOUND' && appError.resource) {
        return {
          status,
          headers,
          body: {
            code: 'RESOURCE_NOT_FOUND',
            message,
            details: { resource_type: appError.resource.type, resource_id: appError.resource.id },
          },
        };
      }
      return { status, headers, body: { code: `HTTP_${status}`, message } };
    }
    case 'detail':
    default:
      return { status, headers, body: { detail: message } };
  }
}

function statusOf(error: AppError, options: RenderOptions): number {
  if (error.code === 'BAD_USER_INPUT') return options.validationStatus;
  if (error.code === 'LOGIN_FAILED') return options.loginFailureStatus;
  return error.status;
}
