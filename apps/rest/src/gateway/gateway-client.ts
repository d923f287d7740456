/**
 * The facade's only way to data: fixed GraphQL operation documents (so the gateway's parse and plan caches hit)
 * executed with variables, by the gateway process over a keep-alive pool (GatewayClient, GATEWAY_MODE=remote) or by the
 * same executor in-process (EmbeddedGateway, embedded-gateway.ts). GraphQL errors come back as AppErrors, an
 * unreachable gateway or subgraph as a 503.
 */
import { CLIENT_IP_HEADER, NOT_PLANNED_CODES, WARM_UP_HEADER } from '@platform/federation';
import { REQUEST_ID_HEADER } from '@platform/logging';
import { GraphQLHttpClient, type GraphQLResponse } from '@platform/service';

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

/** GATEWAY_MODE=remote: the gateway process over HTTP, through the platform's one GraphQL client. */
export class GatewayClient implements Gateway {
  private readonly client: GraphQLHttpClient;

  constructor(
    url: string,
    timeoutMs: number,
    /** Sent on every call (the facade's rate-limit exemption proof, see http/rate-limit.ts). */
    fixedHeaders: Record<string, string> = {},
  ) {
    this.client = new GraphQLHttpClient(url, {
      upstream: 'gateway',
      timeoutMs,
      connections: 64,
      headers: fixedHeaders,
    });
  }

  execute<TData>(
    op: Operation<TData>,
    variables: Record<string, unknown>,
    credentials: CallCredentials,
  ): Promise<TData> {
    const headers: Record<string, string> = { [REQUEST_ID_HEADER]: credentials.requestId };
    if (credentials.authorization) headers['authorization'] = credentials.authorization;
    if (credentials.apiKey) headers['x-api-key'] = credentials.apiKey;
    if (credentials.clientIp) headers[CLIENT_IP_HEADER] = credentials.clientIp;
    return this.client.execute<TData>({ operationName: op.name, query: op.document, variables }, headers);
  }

  async warmUp(operations: readonly Operation<unknown>[]): Promise<number> {
    let planned = 0;
    for (const op of operations) {
      try {
        const { status, payload } = await this.client.post(
          { operationName: op.name, query: op.document },
          { [WARM_UP_HEADER]: '1', [REQUEST_ID_HEADER]: 'warm-up' },
        );
        if (status === 200 && wasPlanned(payload as GraphQLResponse<unknown>)) planned += 1;
      } catch {
        // The gateway is unreachable: stop here (start-up must not wait out a timeout per document); the first real
        // call of each operation plans instead.
        break;
      }
    }
    return planned;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
