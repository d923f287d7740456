/**
 * The one place errors become responses: every route, unknown paths and body-parser failures, in the configured shape,
 * or as RFC 9457 problem details when the client asks for `application/problem+json`.
 */
import type { NextFunction, Request, Response } from 'express';
import { AppError, PROBLEM_MEDIA_TYPE, renderError, type ErrorFormat } from '@platform/errors';
import type { Logger } from '@platform/logging';
import type { RestEnvironment } from '../environment';
import { requestIdOf } from './request-context';
import { requestLoggerOf } from './request-log';

export function notFoundHandler(req: Request, _res: Response, next: NextFunction): void {
  next(new AppError('NOT_FOUND', `No route for ${req.method} ${req.originalUrl.split('?', 1)[0]}`));
}

/**
 * body-parser reports its failures with a `type`, express (e.g. an undecodable path parameter) with a 4xx
 * `status`; both are client errors. Their own messages are not passed on.
 */
function fromFramework(error: unknown): AppError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = (error as { status?: unknown }).status;
  switch ((error as { type?: unknown }).type) {
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'Request body too large');
    case 'entity.parse.failed':
      return new AppError('BAD_REQUEST', 'Malformed JSON body');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content encoding');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new AppError('BAD_REQUEST', 'Malformed request body');
    default:
      break;
  }
  if (status === 404) return new AppError('NOT_FOUND', 'Not found');
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'Request body too large');
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type');
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new AppError('BAD_REQUEST', 'Malformed request');
  return undefined;
}

/**
 * The error format of one response: problem details when the request's Accept header prefers
 * `application/problem+json` to plain JSON (express's negotiator: quality, then specificity, then order), else the
 * deployment's. `Accept: application/json, application/problem+json` keeps the deployment's shape, which it accepts.
 */
export function errorFormatFor(req: Request, configured: ErrorFormat): ErrorFormat {
  if (configured === 'problem' || !req.headers.accept) return configured;
  return req.accepts(['application/json', PROBLEM_MEDIA_TYPE]) === PROBLEM_MEDIA_TYPE
    ? 'problem'
    : configured;
}

export function createErrorHandler(env: RestEnvironment, logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const appError = error instanceof AppError ? error : fromFramework(error);
    const correlationId = requestIdOf(res);
    if (!appError || appError.status >= 500) {
      requestLoggerOf(res, logger).error(
        { err: appError?.cause ?? error, method: req.method, path: req.originalUrl.split('?', 1)[0] },
        'request failed',
      );
    }
    const rendered = renderError(appError ?? error, {
      format: errorFormatFor(req, env.ERROR_FORMAT),
      instance: req.originalUrl.split('?', 1)[0],
      validationStatus: env.VALIDATION_STATUS,
      loginFailureStatus: env.LOGIN_FAILURE_STATUS,
      correlationId,
      acceptLanguage: req.headers['accept-language'],
    });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // The error's shape depends on Accept: caches must key on it.
    res
      .status(rendered.status)
      .set(rendered.headers)
      .vary('Accept')
      .type(rendered.contentType)
      .json(rendered.body);
  };
}
