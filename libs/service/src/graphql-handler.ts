/** Serves an ApolloServer (subgraph or gateway) on node:http at /graphql, with a body limit and request ids. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer, type BaseContext, type HTTPGraphQLRequest } from '@apollo/server';
import { requestIdFrom, REQUEST_ID_HEADER, type Logger } from '@platform/logging';
import { BodyTooLargeError, readBody } from './read-body';

export interface GraphQLHandlerOptions<TContext extends BaseContext> {
  server: ApolloServer<TContext>;
  path?: string;
  maxBodyBytes: number;
  logger: Logger;
  context: (req: IncomingMessage, requestId: string, logger: Logger) => Promise<TContext>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': JSON_TYPE, ...extra }).end(JSON.stringify(body));
}

export function createGraphQLHandler<TContext extends BaseContext>(
  options: GraphQLHandlerOptions<TContext>,
): (req: IncomingMessage, res: ServerResponse) => void {
  const path = options.path ?? '/graphql';
  return (req, res) => {
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const [pathname, search = ''] = (req.url ?? '/').split('?', 2) as [string, string | undefined];
    if (pathname !== path) {
      sendJson(res, 404, { errors: [{ message: 'Not found', extensions: { code: 'NOT_FOUND' } }] });
      return;
    }
    if (req.method !== 'POST' && req.method !== 'GET') {
      sendJson(res, 405, { errors: [{ message: 'Method not allowed', extensions: { code: 'METHOD_NOT_ALLOWED' } }] }, { allow: 'GET, POST' });
      return;
    }
    void handle(req, res, search, requestId).catch((error: unknown) => {
      options.logger.error({ err: error, requestId }, 'graphql handler failed');
      if (!res.headersSent) {
        sendJson(res, 500, { errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
      } else {
        res.destroy();
      }
    });
  };

  async function handle(req: IncomingMessage, res: ServerResponse, search: string, requestId: string): Promise<void> {
    let body: unknown;
    if (req.method === 'POST') {
      let raw: Buffer;
      try {
        raw = await readBody(req, options.maxBodyBytes);
      } catch (error) {
        if (error instanceof BodyTooLargeError) {
          sendJson(res, 413, { errors: [{ message: 'Request body too large', extensions: { code: 'PAYLOAD_TOO_LARGE' } }] }, { connection: 'close' });
          return;
        }
        throw error;
      }
      if (raw.length > 0 && (req.headers['content-type'] ?? '').includes('json')) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          sendJson(res, 400, { errors: [{ message: 'Malformed JSON body', extensions: { code: 'BAD_REQUEST' } }] });
          return;
        }
      } else {
        body = raw.toString('utf8');
      }
    }
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const logger = options.logger.child({ requestId });
    const httpGraphQLRequest: HTTPGraphQLRequest = { method: req.method ?? 'POST', headers, search, body };
    const response = await options.server.executeHTTPGraphQLRequest({
      httpGraphQLRequest,
      context: () => options.context(req, requestId, logger),
    });
    for (const [name, value] of response.headers) res.setHeader(name, value);
    res.statusCode = response.status ?? 200;
    if (response.body.kind === 'complete') {
      res.end(response.body.string);
      return;
    }
    for await (const chunk of response.body.asyncIterator) res.write(chunk);
    res.end();
  }
}
