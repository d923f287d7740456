/** The correlation id of a request: accepted from `X-Request-Id` or generated, echoed on every response. */
import type { NextFunction, Request, Response } from 'express';
import { requestIdFrom, REQUEST_ID_HEADER } from '@platform/logging';

export function requestId(req: Request, res: Response, next: NextFunction): void {
  const id = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
  res.locals['requestId'] = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  next();
}

export const requestIdOf = (res: Response): string => String(res.locals['requestId'] ?? '');
