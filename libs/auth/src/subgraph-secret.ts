/**
 * Subgraphs answer only callers that hold SUBGRAPH_SECRET (the gateway, the facade's embedded gateway, one subgraph
 * calling another): without it, not even `_service` (the SDL with its internal fields) or `_entities` is served.
 * Compared in constant time; a wrong or missing secret is 401 before the body is read. During a rotation every
 * accepted value gets in (SUBGRAPH_SECRET_ACCEPTED), while callers send the current one.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { acceptsValue, mapRing, ringOf, type Secrets } from './key-ring';

export const SUBGRAPH_SECRET_HEADER = 'x-subgraph-secret';
/** Headers a subgraph trusts because only SUBGRAPH_SECRET holders get past the guard: the end client's IP, */
export const CLIENT_IP_HEADER = 'x-client-ip';
/** and that the operation is one of the REST facade's fixed documents (REST's `limit` may ask for up to 1000). */
export const FACADE_CALL_HEADER = 'x-facade-call';

/** What a caller sends: the current value of the ring. */
export const subgraphSecretHeaders = (secret: Secrets): Record<string, string> => ({
  [SUBGRAPH_SECRET_HEADER]: ringOf(secret).current,
});

export function requireSubgraphSecret(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  secret: Secrets,
): (req: IncomingMessage, res: ServerResponse) => void {
  const expected = mapRing(ringOf(secret), (value) => Buffer.from(value, 'utf8'));
  return (req, res) => {
    const presented = req.headers[SUBGRAPH_SECRET_HEADER];
    const given = typeof presented === 'string' ? Buffer.from(presented, 'utf8') : undefined;
    if (given && acceptsValue(expected, given)) {
      handler(req, res);
      return;
    }
    res
      .writeHead(401, { 'content-type': 'application/json; charset=utf-8', 'www-authenticate': 'Subgraph-Secret' })
      .end(JSON.stringify({ errors: [{ message: 'Unauthorized', extensions: { code: 'UNAUTHENTICATED' } }] }));
  };
}
