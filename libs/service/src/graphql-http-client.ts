/**
 * The one GraphQL-over-HTTP client of the platform, with its one error translation: the facade's calls to the gateway,
 * one service calling another (internal-client.ts) and the gateway's subgraph data source (libs/federation) all post
 * through it. undici's `Pool.request` on a keep-alive pool per origin (not WHATWG fetch, not node-fetch: a fraction of
 * the CPU per call, docs/performance.md), undici's own timers as the deadline (the answer's headers within the
 * timeout, connect included, then no gap longer than that in its body), each call timed in the upstream metrics.
 */
import { STATUS_CODES } from 'node:http';
import { Pool } from 'undici';
import { AppError, fromGraphQLError, outcomeUnknown, type GraphQLErrorLike } from '@platform/errors';
import { isTimeout, timeUpstream } from '@platform/metrics';

/** A GraphQL result as it travels: `data` and/or `errors`. */
export interface GraphQLResponse<T> {
  data?: T | null;
  errors?: readonly GraphQLErrorLike[];
}

/** What came back: the status and the body, parsed when it is JSON (a JSON object), else its text. */
export interface GraphQLHttpAnswer {
  status: number;
  statusText: string;
  payload: unknown;
}

/** What a GraphQL request carries in its body. */
export interface GraphQLHttpRequest {
  query: string;
  operationName?: string | undefined;
  variables?: Record<string, unknown> | undefined;
  extensions?: Record<string, unknown> | undefined;
}

/**
 * undici's errors of a request that never reached the upstream: no connection could be made (refused, no such host,
 * the connect timeout). Any other failure (a reset, a timeout waiting for the answer, a closed socket) may come after
 * the upstream read the request.
 */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

const errorCodeOf = (reason: unknown): unknown =>
  typeof reason === 'object' && reason !== null ? (reason as { code?: unknown }).code : undefined;

/**
 * The upstream gave no usable answer: refused, reset, timed out, a proxy's 502/503/504, or a 2xx whose body is not a
 * JSON object. Every caller turns it into SERVICE_UNAVAILABLE (REST: 503 + Retry-After), never into a wrong query; a
 * caller of a mutation only when `mayHaveReached` is false (else OUTCOME_UNKNOWN: the write may be under way, ADR 0020).
 */
export class UpstreamUnavailableError extends Error {
  readonly timedOut: boolean;
  /** Whether the upstream may have received the request (and a mutation may run, or have run, there). */
  readonly mayHaveReached: boolean;
  constructor(
    readonly upstream: string,
    reason: unknown,
    /** An answer came: a proxy's 503 says it passed nothing on; its 502/504 and a broken body may follow a send. */
    answered?: { status: number },
  ) {
    super(reason instanceof Error ? reason.message : String(reason), { cause: reason });
    this.name = 'UpstreamUnavailableError';
    this.timedOut = isTimeout(reason);
    const code = errorCodeOf(reason);
    this.mayHaveReached = answered
      ? answered.status !== 503
      : !(typeof code === 'string' && NOT_SENT_CODES.has(code));
  }
}

export interface GraphQLHttpClientOptions {
  /** The `upstream` label of the call metrics (the gateway, a subgraph's name). */
  upstream: string;
  /** Deadline of the answer's headers (connect included), then of each gap in its body. */
  timeoutMs: number;
  /** Keep-alive connections to the origin. */
  connections?: number;
  /** Sent on every call (e.g. SUBGRAPH_SECRET, the facade's proof). */
  headers?: Record<string, string>;
}

const JSON_TYPES = /^application\/(?:graphql-response\+)?json/;

export class GraphQLHttpClient {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly fixedHeaders: Record<string, string>;

  constructor(
    readonly url: string,
    private readonly options: GraphQLHttpClientOptions,
  ) {
    const parsed = new URL(url);
    this.pool = new Pool(parsed.origin, {
      connections: options.connections ?? 64,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: { timeout: Math.min(options.timeoutMs, 2_000) },
    });
    this.path = parsed.pathname === '/' ? '/graphql' : `${parsed.pathname}${parsed.search}`;
    this.fixedHeaders = { 'content-type': 'application/json', ...options.headers };
  }

  /**
   * One POST, timed in the upstream metrics. Resolves to any answer that is a GraphQL answer (a 2xx JSON object, or a
   * non-2xx: the caller decides what a 400 or a 401 means for it); rejects with UpstreamUnavailableError otherwise.
   */
  async post(
    body: GraphQLHttpRequest | string,
    headers?: Record<string, string>,
    /** This call's deadline instead of the client's (a mutation waits for its commit bound too, ADR 0020). */
    timeoutMs: number = this.options.timeoutMs,
  ): Promise<GraphQLHttpAnswer> {
    const done = timeUpstream(this.options.upstream);
    let answer: GraphQLHttpAnswer;
    try {
      const response = await this.pool.request({
        method: 'POST',
        path: this.path,
        headers: headers ? { ...this.fixedHeaders, ...headers } : this.fixedHeaders,
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const contentType = response.headers['content-type'];
      const text = await response.body.text();
      answer = {
        status: response.statusCode,
        statusText: STATUS_CODES[response.statusCode] ?? '',
        payload: typeof contentType === 'string' && JSON_TYPES.test(contentType) ? JSON.parse(text) : text,
      };
    } catch (error) {
      done(isTimeout(error) ? 'timeout' : 'unavailable');
      throw new UpstreamUnavailableError(this.options.upstream, error);
    }
    const { status, payload } = answer;
    if (status === 502 || status === 503 || status === 504) {
      done('unavailable');
      throw new UpstreamUnavailableError(this.options.upstream, `${status}: ${answer.statusText}`, { status });
    }
    const isObject = typeof payload === 'object' && payload !== null && !Array.isArray(payload);
    if (status >= 200 && status < 300 && !isObject) {
      done('error');
      throw new UpstreamUnavailableError(this.options.upstream, 'Expected a JSON object', { status });
    }
    done(
      status < 200 || status >= 300 || Array.isArray((payload as GraphQLResponse<unknown>).errors)
        ? 'error'
        : 'ok',
    );
    return answer;
  }

  /**
   * Executes an operation: its data, or its first error (or the upstream's absence) as an AppError. A mutation whose
   * request may have reached the upstream without an answer is OUTCOME_UNKNOWN, never a 503 inviting a retry.
   * `translate` names an error by where it happened (a REST expansion), or leaves it to the usual translation.
   */
  async execute<T>(
    request: GraphQLHttpRequest,
    headers?: Record<string, string>,
    timeoutMs?: number,
    translate?: (error: GraphQLErrorLike) => AppError | undefined,
  ): Promise<T> {
    let answer: GraphQLHttpAnswer;
    try {
      answer = await this.post(request, headers, timeoutMs);
    } catch (error) {
      throw isMutation(request.query) && !(error instanceof UpstreamUnavailableError && !error.mayHaveReached)
        ? outcomeUnknown(error)
        : unavailableError(error);
    }
    return dataOf(answer.payload as GraphQLResponse<T>, translate);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** The data of an operation's result, or its first error as an AppError. */
export function dataOf<T>(
  payload: GraphQLResponse<T>,
  /** Names an error by where it happened (a REST expansion), or leaves it to the usual translation (undefined). */
  translate?: (error: GraphQLErrorLike) => AppError | undefined,
): T {
  const first = typeof payload === 'object' && payload !== null ? payload.errors?.[0] : undefined;
  if (first) throw translate?.(first) ?? fromUpstreamError(first);
  if (typeof payload !== 'object' || payload === null || payload.data === undefined || payload.data === null)
    throw new AppError('INTERNAL_SERVER_ERROR', 'Internal server error');
  return payload.data;
}

/** The operation of a GraphQL document is a mutation (a write somewhere), not a query. */
export const isMutation = (document: string): boolean => document.trimStart().startsWith('mutation');

/** An upstream that did not answer in time (or at all): 503 with Retry-After, the same on every path. */
export const unavailableError = (cause: unknown): AppError =>
  new AppError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable', {
    cause,
    headers: { 'retry-after': '5' },
  });

/** A GraphQL error as the caller's AppError; an upstream's own SERVICE_UNAVAILABLE keeps its 503 + Retry-After. */
export function fromUpstreamError(error: GraphQLErrorLike): AppError {
  if (error.extensions?.['code'] === 'SERVICE_UNAVAILABLE') {
    const translated = fromGraphQLError(error);
    return translated.headers?.['retry-after'] ? translated : unavailableError(error.message);
  }
  return fromGraphQLError(error);
}
