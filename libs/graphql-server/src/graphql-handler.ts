/** Serves an ApolloServer (subgraph or gateway) on node:http at /graphql, with a body limit and request ids. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer, type BaseContext, type HTTPGraphQLRequest } from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';
import { jsonTooDeep, jsonTooDeepMessage, MAX_JSON_DEPTH, requestTarget } from '@platform/contracts';
import { accessLogger, requestIdFrom, REQUEST_ID_HEADER, type Logger } from '@platform/logging';
import { operationNames, setRouteLabel } from '@platform/metrics';
import { BodyTooLargeError, readBody } from '@platform/service';

export interface GraphQLHandlerOptions<TContext extends BaseContext> {
  server: ApolloServer<TContext>;
  path?: string;
  maxBodyBytes: number;
  logger: Logger;
  /** `body`: the parsed POST body (undefined for a GET), e.g. to name the request. */
  context: (req: IncomingMessage, requestId: string, logger: Logger, body: unknown) => Promise<TContext>;
  /**
   * Refuses a request before Apollo Server parses anything (the gateway's trusted-documents mode): the parsed POST body
   * or the GET query string in, a client error out (answered 400), or undefined to go on.
   */
  refuse?: (request: { body: unknown; search: string; headers: IncomingMessage['headers'] }) => GraphQLFormattedError | undefined;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': JSON_TYPE, ...extra }).end(JSON.stringify(body));
}

/** A refusal before GraphQL runs, in the GraphQL error shape: `{ errors: [{ message, extensions: { code } }] }`. */
function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  code: string,
  extra: Record<string, string> = {},
): void {
  sendJson(res, status, { errors: [{ message, extensions: { code } }] }, extra);
}

export function createGraphQLHandler<TContext extends BaseContext>(
  options: GraphQLHandlerOptions<TContext>,
): (req: IncomingMessage, res: ServerResponse) => void {
  const path = options.path ?? '/graphql';
  const access = accessLogger(options.logger);
  return (req, res) => {
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const logger = options.logger.child({ requestId });
    const request: RequestLogState = { operation: undefined };
    logWhenDone(req, res, access, requestId, request);
    const { path: pathname, query: search } = requestTarget(req.url ?? '/');
    if (pathname !== path) {
      sendError(res, 404, 'Not found', 'NOT_FOUND');
      return;
    }
    // The HTTP metrics' route: the operation name once the body names one (bounded), "anonymous" until then.
    setRouteLabel(res, () => operationNames.label(request.operation));
    if (req.method !== 'POST' && req.method !== 'GET') {
      sendError(res, 405, 'Method not allowed', 'METHOD_NOT_ALLOWED', { allow: 'GET, POST' });
      return;
    }
    void handle(req, res, search, requestId, logger, request).catch((error: unknown) => {
      logger.error({ err: error }, 'graphql handler failed');
      if (!res.headersSent) {
        sendError(res, 500, 'Internal server error', 'INTERNAL_SERVER_ERROR');
      } else {
        res.destroy();
      }
    });
  };

  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    search: string,
    requestId: string,
    logger: Logger,
    request: RequestLogState,
  ): Promise<void> {
    let body: unknown;
    if (req.method === 'POST') {
      let raw: Buffer;
      try {
        raw = await readBody(req, options.maxBodyBytes);
      } catch (error) {
        if (error instanceof BodyTooLargeError) {
          sendError(res, 413, 'Request body too large', 'PAYLOAD_TOO_LARGE', { connection: 'close' });
          return;
        }
        throw error;
      }
      if (raw.length > 0 && (req.headers['content-type'] ?? '').includes('json')) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          sendError(res, 400, 'Malformed JSON body', 'BAD_REQUEST');
          return;
        }
      } else {
        body = raw.toString('utf8');
      }
    }
    // Before anything walks the request (coercion, hashing, logging): JSON.parse takes any depth, they recurse.
    const tooDeep = req.method === 'POST' ? jsonTooDeep(body) : deepSearchParameter(search);
    if (tooDeep) {
      sendError(res, 400, jsonTooDeepMessage(tooDeep.under), 'BAD_REQUEST');
      return;
    }
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    request.operation = operationNameOf(body, search);
    const refusal = options.refuse?.({ body, search, headers: req.headers });
    if (refusal) {
      sendJson(res, 400, { errors: [refusal] });
      return;
    }
    const httpGraphQLRequest: HTTPGraphQLRequest = { method: req.method ?? 'POST', headers, search, body };
    const response = await options.server.executeHTTPGraphQLRequest({
      httpGraphQLRequest,
      context: () => options.context(req, requestId, logger, body),
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

/** A GET's JSON parameters (`variables`, `extensions`) nesting too deep, named; malformed ones are Apollo's to refuse. */
function deepSearchParameter(search: string): { under: string } | undefined {
  const parameters = new URLSearchParams(search);
  for (const name of ['variables', 'extensions']) {
    const text = parameters.get(name);
    if (text === null) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    if (jsonTooDeep(value, MAX_JSON_DEPTH - 1)) return { under: name };
  }
  return undefined;
}

interface RequestLogState {
  operation: string | undefined;
}

const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,127}$/;

/** The client-declared operation name (POST body or GET `operationName`), when it is a sane GraphQL name. */
function operationNameOf(body: unknown, search: string): string | undefined {
  const fromBody =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as { operationName?: unknown }).operationName
      : undefined;
  const name = typeof fromBody === 'string' ? fromBody : new URLSearchParams(search).get('operationName');
  return name && OPERATION_NAME.test(name) ? name : undefined;
}

/** One line per request when the response is done (or the client gave up): id, method, operation, status, duration. */
function logWhenDone(
  req: IncomingMessage,
  res: ServerResponse,
  access: Logger,
  requestId: string,
  request: RequestLogState,
): void {
  const started = process.hrtime.bigint();
  let logged = false;
  const write = () => {
    if (logged) return;
    logged = true;
    const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
    access.info(
      {
        requestId,
        method: req.method,
        ...(request.operation ? { operation: request.operation } : {}),
        status: res.statusCode,
        durationMs,
        ...(res.writableFinished ? {} : { aborted: true }),
      },
      'request completed',
    );
  };
  res.once('finish', write);
  res.once('close', write);
}
