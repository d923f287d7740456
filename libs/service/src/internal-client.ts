/**
 * GraphQL calls from one service to another (e.g. users -> auth when an account is created), over a keep-alive
 * pool, authenticated with a short-lived internal token, with a timeout; errors come back as AppErrors.
 */
import { Pool } from 'undici';
import { SUBGRAPH_SECRET_HEADER, signInternalToken } from '@platform/auth';
import { AppError, fromGraphQLError, type GraphQLErrorLike } from '@platform/errors';
import { REQUEST_ID_HEADER } from '@platform/logging';

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: GraphQLErrorLike[];
}

export class InternalGraphQLClient {
  private readonly pool: Pool;
  private readonly path: string;
  private token: { value: string; renewAt: number } | undefined;

  private readonly caller: string;
  private readonly secret: string;
  private readonly subgraphSecret: string;
  private readonly timeoutMs: number;

  constructor(
    url: string,
    options: {
      /** Who is calling (the internal token's subject `service:<caller>`). */
      caller: string;
      jwtSecret: string;
      /** SUBGRAPH_SECRET: the called subgraph refuses requests without it. */
      subgraphSecret: string;
      timeoutMs?: number;
    },
  ) {
    this.caller = options.caller;
    this.secret = options.jwtSecret;
    this.subgraphSecret = options.subgraphSecret;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    const parsed = new URL(url);
    this.pool = new Pool(parsed.origin, { connections: 16, keepAliveTimeout: 30_000 });
    this.path = parsed.pathname === '/' ? '/graphql' : parsed.pathname;
  }

  private bearer(): string {
    const now = Date.now();
    if (!this.token || now >= this.token.renewAt) {
      this.token = { value: signInternalToken(this.caller, this.secret), renewAt: now + 120_000 };
    }
    return this.token.value;
  }

  async request<T>(query: string, variables: Record<string, unknown>, requestId?: string): Promise<T> {
    let payload: GraphQLResponse<T>;
    try {
      const response = await this.pool.request({
        method: 'POST',
        path: this.path,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${this.bearer()}`,
          [SUBGRAPH_SECRET_HEADER]: this.subgraphSecret,
          ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}),
        },
        // The operation's name travels too, so the called service's request log and metrics can say what was asked.
        body: JSON.stringify({ query, variables, ...operationNameOf(query) }),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      payload = (await response.body.json()) as GraphQLResponse<T>;
    } catch (error) {
      throw new AppError('SERVICE_UNAVAILABLE', 'A dependency is unavailable', { cause: error });
    }
    const first = payload.errors?.[0];
    if (first) throw fromGraphQLError(first);
    if (payload.data === undefined || payload.data === null) {
      throw new AppError('INTERNAL_SERVER_ERROR', 'Internal server error');
    }
    return payload.data;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

const NAMED_OPERATION = /^\s*(?:query|mutation)\s+([_A-Za-z][_0-9A-Za-z]*)/;

function operationNameOf(query: string): { operationName?: string } {
  const name = NAMED_OPERATION.exec(query)?.[1];
  return name ? { operationName: name } : {};
}
