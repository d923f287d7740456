/**
 * Subgraphs answer only callers that hold SUBGRAPH_SECRET (the gateway, the facade's embedded gateway, one subgraph
 * calling another): without it, not even `_service` (the SDL with its internal fields) or `_entities` is served.
 * Compared in constant time; a wrong or missing secret is 401 before the body is read.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const SUBGRAPH_SECRET_HEADER = 'x-subgraph-secret';
/** Headers a subgraph trusts because only SUBGRAPH_SECRET holders get past the guard: the end client's IP, */
export const CLIENT_IP_HEADER = 'x-client-ip';
/** and that the operation is one of the REST facade's fixed documents (REST's `limit` may ask for up to 1000). */
export const FACADE_CALL_HEADER = 'x-facade-call';

export function requireSubgraphSecret(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  secret: string,
): (req: IncomingMessage, res: ServerResponse) => void {
  const expected = Buffer.from(secret, 'utf8');
  return (req, res) => {
    const presented = req.headers[SUBGRAPH_SECRET_HEADER];
    const given = typeof presented === 'string' ? Buffer.from(presented, 'utf8') : undefined;
    // Equal lengths first: timingSafeEqual throws otherwise; the secret's length is no secret.
    if (given && given.length === expected.length && timingSafeEqual(given, expected)) {
      handler(req, res);
      return;
    }
    res
      .writeHead(401, { 'content-type': 'application/json; charset=utf-8', 'www-authenticate': 'Subgraph-Secret' })
      .end(JSON.stringify({ errors: [{ message: 'Unauthorized', extensions: { code: 'UNAUTHENTICATED' } }] }));
  };
}
