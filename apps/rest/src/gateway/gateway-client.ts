/**
 * The facade's only way to data: fixed GraphQL operation documents (so the gateway's parse and plan caches hit)
 * executed with variables, by the gateway process over a keep-alive pool (GatewayClient, GATEWAY_MODE=remote) or by the
 * same executor in-process (EmbeddedGateway, embedded-gateway.ts). GraphQL errors come back as AppErrors, an
 * unreachable gateway or subgraph as a 503.
 */
import { Pool } from 'undici';
import { AppError, fromGraphQLError, type GraphQLErrorLike } from '@platform/errors';
import { CLIENT_IP_HEADER, NOT_PLANNED_CODES, WARM_UP_HEADER } from '@platform/federation';
import { REQUEST_ID_HEADER } from '@platform/logging';
import { isTimeout, timeUpstream } from '@platform/metrics';

/** A named operation document; the result type is carried for the caller. */
export interface Operation<TData> {
  readonly name: string;
  readonly document: string;
  /** Phantom field: never set, only typed. */
  readonly __data?: TData;
}

export const operation = <TData>(name: string, document: string): Operation<TData> => ({ name, document });

export interface CallCredentials {
  authorization?: string | undefined;
  apiKey?: string | undefined;
  requestId: string;
  /** The client's IP as the facade sees it (TRUST_PROXY): the auth subgraph's login throttle counts per IP. */
  clientIp?: string | undefined;
}

/** What the routes execute their operations with, whichever GATEWAY_MODE runs. */
export interface Gateway {
  execute<TData>(
    op: Operation<TData>,
    variables: Record<string, unknown>,
    credentials: CallCredentials,
  ): Promise<TData>;
  /** Dry-runs each operation once (no subgraph is called) so its plan is cached; resolves to how many got planned. */
  warmUp(operations: readonly Operation<unknown>[]): Promise<number>;
  close(): Promise<void>;
}

/** A dry run got a plan unless its document or its placeholder variables were refused. */
export const wasPlanned = (payload: GraphQLResponse<unknown>): boolean =>
  !(payload.errors ?? []).some((error) => NOT_PLANNED_CODES.includes(String(error.extensions?.['code'])));

export interface GraphQLResponse<T> {
  data?: T | null;
  errors?: readonly GraphQLErrorLike[];
}

/** GATEWAY_MODE=remote: the gateway process over HTTP. */
export class GatewayClient implements Gateway {
  private readonly pool: Pool;
  private readonly path: string;

  constructor(
    url: string,
    private readonly timeoutMs: number,
    /** Sent on every call (the facade's rate-limit exemption proof, see http/rate-limit.ts). */
    private readonly fixedHeaders: Record<string, string> = {},
  ) {
    const parsed = new URL(url);
    this.pool = new Pool(parsed.origin, { connections: 64, keepAliveTimeout: 30_000, pipelining: 1 });
    this.path = parsed.pathname;
  }

  async execute<TData>(
    op: Operation<TData>,
    variables: Record<string, unknown>,
    credentials: CallCredentials,
  ): Promise<TData> {
    const headers: Record<string, string> = {
      ...this.fixedHeaders,
      'content-type': 'application/json',
      [REQUEST_ID_HEADER]: credentials.requestId,
    };
    if (credentials.authorization) headers['authorization'] = credentials.authorization;
    if (credentials.apiKey) headers['x-api-key'] = credentials.apiKey;
    if (credentials.clientIp) headers[CLIENT_IP_HEADER] = credentials.clientIp;
    let answer: { status: number; payload: GraphQLResponse<TData> };
    const done = timeUpstream('gateway');
    try {
      answer = await this.post<TData>(headers, { operationName: op.name, query: op.document, variables });
    } catch (error) {
      done(isTimeout(error) ? 'timeout' : 'unavailable');
      throw unavailable(error);
    }
    done(answer.payload.errors?.length ? 'error' : 'ok');
    return dataOf(answer.payload);
  }

  async warmUp(operations: readonly Operation<unknown>[]): Promise<number> {
    let planned = 0;
    for (const op of operations) {
      try {
        const { status, payload } = await this.post(
          {
            ...this.fixedHeaders,
            'content-type': 'application/json',
            [WARM_UP_HEADER]: '1',
            [REQUEST_ID_HEADER]: 'warm-up',
          },
          { operationName: op.name, query: op.document },
        );
        if (status === 200 && wasPlanned(payload)) planned += 1;
      } catch {
        // The gateway is unreachable: stop here (start-up must not wait out a timeout per document); the first real
        // call of each operation plans instead.
        break;
      }
    }
    return planned;
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /** One POST to the gateway; rejects when no JSON answer arrives in time. */
  private async post<TData>(
    headers: Record<string, string>,
    body: { operationName: string; query: string; variables?: Record<string, unknown> },
  ): Promise<{ status: number; payload: GraphQLResponse<TData> }> {
    const response = await this.pool.request({
      method: 'POST',
      path: this.path,
      headers,
      body: JSON.stringify(body),
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
    return { status: response.statusCode, payload: (await response.body.json()) as GraphQLResponse<TData> };
  }
}

/** The data of an operation's result, or its first error as an AppError. */
export function dataOf<TData>(payload: GraphQLResponse<TData>): TData {
  const first = payload.errors?.[0];
  if (first) throw fromGatewayError(first);
  if (payload.data === undefined || payload.data === null)
    throw new AppError('INTERNAL_SERVER_ERROR', 'Internal server error');
  return payload.data;
}

export const unavailable = (cause: unknown) =>
  new AppError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable', {
    cause,
    headers: { 'retry-after': '5' },
  });

/** A subgraph the gateway could not reach surfaces as a 503 with Retry-After, not as a generic 500. */
export function fromGatewayError(error: GraphQLErrorLike): AppError {
  const code = error.extensions?.['code'];
  if (code === 'SERVICE_UNAVAILABLE') return unavailable(error.message);
  return fromGraphQLError(error);
}
