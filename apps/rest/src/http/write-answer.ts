/**
 * A write's client is answered by the operation's deadline plus its commit bound (ADR 0020). A healthy subgraph has
 * answered by then; when it has not, the facade answers 504 OUTCOME_UNKNOWN (no Retry-After: the write may be
 * committing) and keeps waiting for the operation's real outcome, which the Idempotency-Key layer stores for a keyed
 * POST, so that a retry with the same key gets the real answer instead of running the write twice.
 */
import type { Request, Response } from 'express';
import { outcomeUnknown } from '@platform/errors';
import type { StoredResponse } from '@platform/rate-limit';
import type { RestEnvironment } from '../environment';
import type { RouteResult } from './route';
import { renderRequestError, serialized } from './error-handler';

const EXPIRED = Symbol('expired');

/** `work`'s result if it comes within `ms`; else `onLate(work)` and OUTCOME_UNKNOWN. */
export async function answerWithin<T>(work: Promise<T>, ms: number, onLate: (late: Promise<T>) => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof EXPIRED>((resolve) => {
    timer = setTimeout(() => resolve(EXPIRED), ms);
  });
  try {
    const first = await Promise.race([work, expired]);
    if (first !== EXPIRED) return first;
  } finally {
    clearTimeout(timer);
  }
  onLate(work);
  throw outcomeUnknown();
}

/** Headers set before the route ran that belong to the outcome (versioning's, caching's). */
const OUTCOME_HEADERS = ['cache-control', 'x-api-version', 'deprecation', 'sunset', 'link'];

/**
 * The answer a route's late result (or failure) would have been, as the Idempotency-Key layer stores it: the same
 * status, headers and bytes the response path writes (register-routes.ts, error-handler.ts). Never rejects.
 */
export function lateAnswer(
  late: Promise<RouteResult>,
  req: Request,
  res: Response,
  env: RestEnvironment,
): Promise<StoredResponse> {
  const before: Record<string, string> = {};
  for (const name of OUTCOME_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) before[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return late.then(
    (result) => {
      const headers: Record<string, string> = { ...before };
      for (const [name, value] of Object.entries(result.headers ?? {}))
        headers[name] = name === 'link' && headers['link'] ? `${headers['link']}, ${value}` : value;
      if (result.body === undefined || result.status === 204)
        return { status: result.status, headers, body: '' };
      headers['content-type'] = 'application/json; charset=utf-8';
      return {
        status: result.status,
        headers,
        body: Buffer.from(JSON.stringify(result.body), 'utf8').toString('base64'),
      };
    },
    (error: unknown) => {
      const rendered = renderRequestError(error, req, res, env);
      const { contentType, body } = serialized(rendered);
      return {
        status: rendered.status,
        headers: { ...before, ...rendered.headers, 'content-type': contentType },
        body: Buffer.from(body, 'utf8').toString('base64'),
      };
    },
  );
}
