/**
 * Names the route template (`/items/:item_id`, never the raw path) that the HTTP metrics count a request under: the
 * express route that matched it, read when the response is done; "unmatched" when none did (404s).
 */
import type { NextFunction, Request, Response } from 'express';
import { setRouteLabel } from '@platform/metrics';

export function routeLabel(req: Request, res: Response, next: NextFunction): void {
  setRouteLabel(res, () => {
    const path = (req.route as { path?: unknown } | undefined)?.path;
    return typeof path === 'string' ? `${req.baseUrl}${path}` : undefined;
  });
  next();
}
