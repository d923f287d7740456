/**
 * The request's caller, established once (libs/federation credential-checks.ts; docs/architecture.md "The caller"):
 * before the rate limit, the credential's form and a bearer token's signature are checked and the request's
 * generations read (`present`); where the request needs it, the account behind the token or the API key's verdict
 * (`resolve`, once per request). The rate limit, the idempotency binding, the read cache's rights key and what the
 * embedded executor forwards to the subgraphs all read this one result.
 */
import type { RequestHandler, Response } from 'express';
import type { Callers, PresentedCaller, ResolvedCaller } from '@platform/federation';
import { fromUpstreamError, unavailableError } from '@platform/service';
import { GraphQLError } from 'graphql';
import { apiKeyFrom } from './credentials';

export interface RequestCaller {
  presented: PresentedCaller;
  /**
   * The principal (memoized: one check per request). `acceptApiKey`: whether the route takes API keys; without, a key
   * sent is ignored as before. Rejects with the AppError of a refused credential (401) or an unknown verdict (503).
   */
  resolve(requestId: string, acceptApiKey: boolean): Promise<ResolvedCaller>;
}

export function establishCaller(callers: Callers): RequestHandler {
  return (req, res, next) => {
    const presented = callers.present(req.headers.authorization || undefined, apiKeyFrom(req), `${req.method} ${req.originalUrl}`);
    const resolved = new Map<boolean, Promise<ResolvedCaller>>();
    const caller: RequestCaller = {
      presented,
      resolve: (requestId, acceptApiKey) => {
        // Without a key (or with a bearer, which wins) both flags resolve the same way: one check either way.
        const flag = acceptApiKey && presented.apiKey !== undefined && !presented.authorization;
        let pending = resolved.get(flag);
        if (!pending) {
          pending = callers.resolve(presented, requestId, flag).catch((error: unknown) => {
            if (error instanceof GraphQLError)
              throw fromUpstreamError({ message: error.message, extensions: error.extensions });
            throw unavailableError(error);
          });
          resolved.set(flag, pending);
        }
        return pending;
      },
    };
    res.locals['caller'] = caller;
    next();
  };
}

export const callerOf = (res: Response): RequestCaller => {
  const caller = res.locals['caller'] as RequestCaller | undefined;
  if (!caller) throw new Error('no caller: establishCaller runs before the routes');
  return caller;
};
