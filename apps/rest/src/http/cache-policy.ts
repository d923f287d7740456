/**
 * What HTTP caches may keep of the facade's answers (RFC 9111). Every API answer is for its caller only: `private,
 * no-cache` (a browser may keep it but revalidates it with its ETag, answered 304 while unchanged), and `Vary` names the
 * credential headers beside the version inputs (X-API-Version, Accept) and Origin, so no cache hands one caller's answer
 * to a request with another credential. RFC 9111 §3.5 protects only `Authorization` from shared caches; an API key in
 * `X-API-Key` or a cookie is not. (A key in `?api_key=` is part of the URL, the cache key itself.) Answers that carry a
 * credential or a secret (token pairs, a new API key: route `carriesSecret`) and every error are `no-store`; the
 * documentation is the only public answer. No content coding is applied, so Accept-Encoding selects nothing.
 */
import type { NextFunction, Request, Response } from 'express';

/** Every API answer: kept for its caller only, revalidated before reuse. */
export const PRIVATE_ANSWER = 'private, no-cache';
/** Answers with a credential or a secret in them, and errors: kept by no cache at all. */
export const NO_STORE = 'no-store';
/** The documentation (OpenAPI document, /docs, the migration note): the same for everyone. */
export const PUBLIC_DOCUMENT = 'public, max-age=300';

/** The request headers that carry a credential, so select the answer (with X-API-Version, Accept and Origin). */
export const CREDENTIAL_HEADERS = ['Authorization', 'X-API-Key', 'Cookie'] as const;

/** The default of every answer past the documentation: private to its caller, varying with its credential. */
export function privateAnswers(_req: Request, res: Response, next: NextFunction): void {
  res.set('cache-control', PRIVATE_ANSWER);
  for (const header of CREDENTIAL_HEADERS) res.vary(header);
  next();
}

/** An answer with a credential or secret in it: kept by no cache (`Pragma` too, for HTTP/1.0 caches: RFC 6749 §5.1). */
export function secretAnswer(res: Response): void {
  res.set('cache-control', NO_STORE).set('pragma', 'no-cache');
}
