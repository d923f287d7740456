/**
 * GraphQL calls from one service to another (e.g. users -> auth when an account is created): the platform's one
 * GraphQL HTTP client (graphql-http-client.ts), authenticated with a short-lived internal token and SUBGRAPH_SECRET;
 * errors come back as AppErrors.
 */
import { signInternalToken, subgraphSecretHeaders, type Secrets } from '@platform/auth';
import { REQUEST_ID_HEADER } from '@platform/logging';
import { currentDeadline } from '@platform/contracts';
import { GraphQLHttpClient, isMutation } from './graphql-http-client';

export class InternalGraphQLClient {
  private readonly client: GraphQLHttpClient;
  private token: { value: string; renewAt: number } | undefined;

  private readonly caller: string;
  private readonly secret: Secrets;

  constructor(
    url: string,
    options: {
      /** Who is calling (the internal token's subject `service:<caller>`). */
      caller: string;
      /** JWT_SECRET (its ring: the internal token is signed with the current key). */
      jwtSecret: Secrets;
      /** SUBGRAPH_SECRET (its ring's current value): the called subgraph refuses requests without it. */
      subgraphSecret: Secrets;
      timeoutMs?: number;
      /** The `upstream` label of the call metrics; default `internal`. */
      upstream?: string;
    },
  ) {
    this.caller = options.caller;
    this.secret = options.jwtSecret;
    this.client = new GraphQLHttpClient(url, {
      upstream: options.upstream ?? 'internal',
      timeoutMs: options.timeoutMs ?? 5_000,
      connections: 16,
      headers: subgraphSecretHeaders(options.subgraphSecret),
    });
  }

  private bearer(): string {
    const now = Date.now();
    if (!this.token || now >= this.token.renewAt) {
      this.token = { value: `Bearer ${signInternalToken(this.caller, this.secret)}`, renewAt: now + 120_000 };
    }
    return this.token.value;
  }

  request<T>(query: string, variables: Record<string, unknown>, requestId?: string): Promise<T> {
    // What is left of the request's deadline goes with the call (ADR 0020): the called subgraph starts no write after
    // it, and a mutation is waited for until its writes have settled.
    const deadline = currentDeadline();
    const headers: Record<string, string> = { authorization: this.bearer(), ...deadline.headers() };
    if (requestId) headers[REQUEST_ID_HEADER] = requestId;
    // The operation's name travels too, so the called service's request log and metrics can say what was asked.
    return this.client.execute<T>(
      { query, variables, operationName: operationNameOf(query) },
      headers,
      isMutation(query) ? Math.max(1, deadline.mutationWaitMs()) : undefined,
    );
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

const NAMED_OPERATION = /^\s*(?:query|mutation)\s+([_A-Za-z][_0-9A-Za-z]*)/;

const operationNameOf = (query: string): string | undefined => NAMED_OPERATION.exec(query)?.[1];
