/**
 * Compressed answers: gzip or Brotli per the client's `Accept-Encoding` (Brotli preferred, at quality 4; never deflate),
 * only above a size threshold (smaller answers cost more CPU than they save bytes), always with `Vary: Accept-Encoding`.
 * Never for an event stream or NDJSON, whose chunks a compressor would hold back until its buffer fills, nor for answers
 * marked `Cache-Control: no-transform`. The facade and the gateway both use it; what a compressed strong ETag becomes is
 * the facade's (http/conditional.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import compression from 'compression';
import vary from 'vary';

/** Media types whose answers are streamed as they are produced: buffering them in a compressor would break them. */
const STREAMED = /^\s*(?:text\/event-stream|application\/x-ndjson|application\/jsonl)\b/i;

/** A connect-style middleware (express, or a plain node handler through `compressedHandler`). */
export type CompressionMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * The middleware for answers of at least `minBytes` (undefined: compression off, a pass-through). Every answer gets
 * `Vary: Accept-Encoding` when compression is on, so a cache never serves a coding to a client that did not ask for it.
 */
export function responseCompression(minBytes: number | undefined): CompressionMiddleware {
  if (minBytes === undefined) return (_req, _res, next) => next();
  const compress = compression({
    threshold: minBytes,
    filter: (req, res) => {
      const type = res.getHeader('content-type');
      if (typeof type === 'string' && STREAMED.test(type)) return false;
      return compression.filter(req, res);
    },
  }) as unknown as CompressionMiddleware;
  return (req, res, next) => {
    // On every answer (304s and small ones too): the representation a cache keeps depends on Accept-Encoding.
    vary(res, 'Accept-Encoding');
    const accepted = req.headers['accept-encoding'];
    if (accepted !== undefined) req.headers['accept-encoding'] = withoutDeflate(accepted);
    compress(req, res, next);
  };
}

/**
 * What `compression` negotiates from: the header without `deflate`, which the library would serve but the interface
 * does not (clients disagree on whether it means zlib or raw DEFLATE); only deflate acceptable: `identity`.
 */
function withoutDeflate(header: string | string[]): string {
  const kept = (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .filter((entry) => entry.split(';')[0]!.trim().toLowerCase() !== 'deflate');
  return kept.some((entry) => entry.trim() !== '') ? kept.join(',') : 'identity';
}
