/**
 * One log line per request, written when the response is finished (or the client gave up): request id, method,
 * path (never the query, which may carry an API key), status, API version and duration. The per-request pino child
 * is also what the error handler logs with, so every line of a request carries its id.
 */
import type { NextFunction, Request, Response } from 'express';
import { accessLogger, type Logger } from '@platform/logging';
import { requestIdOf } from './request-context';
import { apiVersionOf } from '../versioning/versioning-middleware';

const LOGGER_KEY = 'logger';

/** The request's pino child (carrying its id), or one made from `base` when the request log did not run. */
export const requestLoggerOf = (res: Response, base: Logger): Logger =>
  (res.locals[LOGGER_KEY] as Logger | undefined) ?? base.child({ requestId: requestIdOf(res) });

export function requestLog(logger: Logger) {
  const access = accessLogger(logger);
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(res);
    res.locals[LOGGER_KEY] = logger.child({ requestId });
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
