/** The one place errors become responses: every route, unknown paths and body-parser failures, in the configured shape. */
import type { NextFunction, Request, Response } from 'express';
import { AppError, renderError } from '@platform/errors';
import type { Logger } from '@platform/logging';
import type { RestEnvironment } from '../environment';
import { requestIdOf } from './request-context';

export function notFoundHandler(req: Request, _res: Response, next: NextFunction): void {
  next(new AppError('NOT_FOUND', `No route for ${req.method} ${req.path}`));
}

/** body-parser reports its failures with a `type`; they are client errors. */
function fromBodyParser(error: unknown): AppError | undefined {
  if (typeof error !== 'object' || error === null || !('type' in error)) return undefined;
  switch ((error as { type: unknown }).type) {
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
      return undefined;
  }
}

export function createErrorHandler(env: RestEnvironment, logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const appError = error instanceof AppError ? error : fromBodyParser(error);
    const correlationId = requestIdOf(res);
    if (!appError || appError.status >= 500) {
      logger.error(
        { requestId: correlationId, err: appError?.cause ?? error, method: req.method, path: req.path },
        'request failed',
      );
    }
    const rendered = renderError(appError ?? error, {
      format: env.ERROR_FORMAT,
      validationStatus: env.VALIDATION_STATUS,
      loginFailureStatus: env.LOGIN_FAILURE_STATUS,
      correlationId,
      acceptLanguage: req.headers['accept-language'],
    });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(rendered.status).set(rendered.headers).json(rendered.body);
  };
}
