/**
 * The one place errors become responses: every route, unknown paths and body-parser failures, in the configured shape,
 * or as RFC 9457 problem details when the client asks for `application/problem+json`.
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import {
  AppError,
  PROBLEM_MEDIA_TYPE,
  renderError,
  type ErrorFormat,
  type RenderedError,
} from '@platform/errors';
import type { Logger } from '@platform/logging';
import type { RestEnvironment } from '../environment';
import type { ParserErrorStatus } from '@platform/service';
import { requestIdOf } from './request-context';
import { CURRENT_VERSION, versionHeaders } from '../versioning/api-version';
import { requestLoggerOf } from './request-log';
import { NO_STORE } from './cache-policy';

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

const BEARER_INVALID = 'Bearer error="invalid_token"';

/** An error as this request's answer: the deployment's format (or problem details when Accept asks for them). */
export function renderRequestError(error: unknown, req: Request, res: Response, env: RestEnvironment): RenderedError {
  return renderError(error, {
    format: errorFormatFor(req, env.ERROR_FORMAT),
    instance: req.originalUrl.split('?', 1)[0],
    validationStatus: env.VALIDATION_STATUS,
    loginFailureStatus: env.LOGIN_FAILURE_STATUS,
    correlationId: requestIdOf(res),
    acceptLanguage: req.headers['accept-language'],
  });
}

export function createErrorHandler(env: RestEnvironment, logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const appError = error instanceof AppError ? error : fromFramework(error);
    if (!appError || appError.status >= 500) {
      requestLoggerOf(res, logger).error(
        { err: appError?.cause ?? error, method: req.method, path: req.originalUrl.split('?', 1)[0] },
        'request failed',
      );
    }
    const rendered = renderRequestError(appError ?? error, req, res, env);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // RFC 9110 §15.5.2: every 401 names a scheme to authenticate with; RFC 6750 §3.1: and says a sent token failed.
    const headers =
      rendered.status === 401 && rendered.headers['www-authenticate'] === undefined
        ? {
            ...rendered.headers,
            'www-authenticate': /^bearer\s/i.test(req.headers.authorization ?? '')
              ? BEARER_INVALID
              : 'Bearer',
          }
        : rendered.headers;
    // The error's shape depends on Accept: caches must key on it; and no cache keeps an error (a 401, 404 or 503 is
    // about this request, not the resource).
    const { contentType, body } = serialized(rendered);
    res
      .status(rendered.status)
      .set(headers)
      .vary('Accept')
      .set('content-type', contentType)
      .set('cache-control', NO_STORE);
    res.send(Buffer.from(body, 'utf8'));
  };
}

/**
 * An error's bytes and media type: problem details as exactly `application/problem+json` (the media type defines no
 * charset parameter), the other formats as the JSON every other answer is.
 */
export function serialized(rendered: RenderedError): { contentType: string; body: string } {
  const contentType =
    rendered.contentType === PROBLEM_MEDIA_TYPE
      ? PROBLEM_MEDIA_TYPE
      : `${rendered.contentType}; charset=utf-8`;
  return { contentType, body: JSON.stringify(rendered.body) };
}

/**
 * What the HTTP server answers, in the deployment's error format, for a request its parser refused before any route
 * (runService's `parserErrorBody`): headers too large (431), too slow (408), chunk extensions too large (413), or
 * malformed (400). The request's headers were not read, so its Accept cannot choose problem details: a `problem`
 * deployment answers them anyway.
 */
export function parserErrorBody(env: RestEnvironment) {
  const errors = {
    400: () => new AppError('BAD_REQUEST', 'Malformed request'),
    408: () => new AppError('REQUEST_TIMEOUT', 'The request did not arrive in time'),
    413: () => new AppError('PAYLOAD_TOO_LARGE', 'Request body too large'),
    431: () => new AppError('HEADERS_TOO_LARGE', 'Request line and headers are larger than 16 KiB'),
  };
  return (status: ParserErrorStatus, path: string | undefined) => {
    const correlationId = randomUUID();
    const rendered = renderError(errors[status](), {
      format: env.ERROR_FORMAT,
      ...(path === undefined ? {} : { instance: path }),
      validationStatus: env.VALIDATION_STATUS,
      loginFailureStatus: env.LOGIN_FAILURE_STATUS,
      correlationId,
    });
    return {
      ...serialized(rendered),
      headers: {
        ...rendered.headers,
        ...versionHeaders(CURRENT_VERSION),
        'x-request-id': correlationId,
        'cache-control': NO_STORE,
      },
    };
  };
}
