/**
 * One log line per request, written when the response is finished (or the client gave up): request id, method,
 * path (never the query, which may carry an API key), status, API version and duration. Whatever else logs for a
 * request (the error handler) uses a pino child carrying its id, made only then (most requests log nothing else).
 */
import type { NextFunction, Request, Response } from 'express';
import { accessLogger, type Logger } from '@platform/logging';
import { requestIdOf } from './request-context';
import { apiVersionOf } from '../versioning/versioning-middleware';

/** A pino child of `base` carrying the request's id. */
export const requestLoggerOf = (res: Response, base: Logger): Logger => base.child({ requestId: requestIdOf(res) });

export function requestLog(logger: Logger) {
  const access = accessLogger(logger);
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(res);
    const method = req.method;
    const path = req.originalUrl.split('?', 1)[0];
    let logged = false;
    const write = (aborted: boolean) => {
      if (logged) return;
      logged = true;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const version = apiVersionOf(res);
      access.info(
        {
          requestId,
          method,
          path,
          status: res.statusCode,
          durationMs: Math.round(durationMs * 10) / 10,
          ...(version !== undefined ? { apiVersion: version } : {}),
          ...(aborted ? { aborted: true } : {}),
        },
        'request completed',
      );
    };
    res.once('finish', () => write(false));
    res.once('close', () => write(!res.writableFinished));
    next();
  };
}
