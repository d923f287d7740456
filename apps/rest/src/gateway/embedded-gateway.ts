/**
 * GATEWAY_MODE=embedded: the facade runs the gateway's executor (@platform/federation, the same supergraph, query
 * planner, forwarding and deadlines as the gateway process) in-process and calls the subgraphs itself. One HTTP hop and
 * one process fewer per call; the gateway process still serves GraphQL clients. The operations are the facade's
 * fixed documents, executed through ApolloServer so its document cache and the gateway's plan cache hit.
 */
import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { AppError, maskGraphQLError } from '@platform/errors';
import {
  ANONYMOUS,
  createSupergraphGateway,
  warmUpPlugin,
  type FederationContext,
  type SupergraphGatewayOptions,
} from '@platform/federation';
import { dataOf, graphqlMetricsPlugin } from '@platform/service';
import { wasPlanned, type CallCredentials, type Gateway, type Operation } from './gateway-client';

/** The supergraph, its subgraphs and the logger as createSupergraphGateway takes them, and what the facade adds. */
export interface EmbeddedGatewayOptions extends SupergraphGatewayOptions {
  /** Runs after the executor stopped (e.g. closes the credential checks' clients of the auth and users subgraphs). */
  onClose?: () => Promise<void>;
}

export class EmbeddedGateway implements Gateway {
  private constructor(
    private readonly server: ApolloServer<FederationContext>,
    private readonly closePools: () => Promise<void>,
  ) {}

  static async start(options: EmbeddedGatewayOptions): Promise<EmbeddedGateway> {
    const { gateway, close } = createSupergraphGateway(options);
    const server = new ApolloServer<FederationContext>({
      gateway,
      formatError: maskGraphQLError,
      includeStacktraceInErrorResponses: false,
      // Only the facade's own documents run here; nothing is served over HTTP.
      introspection: false,
      plugins: [
        ApolloServerPluginLandingPageDisabled(),
        ApolloServerPluginCacheControlDisabled(),
        // The same GraphQL metrics as the gateway process (operations, errors by code).
        graphqlMetricsPlugin<FederationContext>(),
        warmUpPlugin(),
      ],
    });
    await server.start();
    return new EmbeddedGateway(server, async () => {
      await close();
      await options.onClose?.();
    });
  }

  async execute<TData, TVariables extends Record<string, unknown>>(
    op: Operation<TData, TVariables>,
    variables: NoInfer<TVariables>,
    credentials: CallCredentials,
  ): Promise<TData> {
    const { requestId, clientIp, snapshot } = credentials;
    // The caller the facade established for this request (a refused credential: its 401 or 503 AppError).
    const caller = await credentials.caller();
    const response = await this.server.executeOperation<TData>(
      { query: op.document, operationName: op.name, variables },
      { contextValue: { requestId, caller, snapshot, clientIp, facade: true } },
    );
    // The facade's documents never @defer, so the result is always a single one.
    if (response.body.kind !== 'single') throw new AppError('INTERNAL_SERVER_ERROR', 'Internal server error');
    return dataOf(response.body.singleResult);
  }

  async warmUp(operations: readonly Operation<unknown, unknown>[]): Promise<number> {
    let planned = 0;
    for (const op of operations) {
      const response = await this.server.executeOperation(
        { query: op.document, operationName: op.name },
        { contextValue: { requestId: 'warm-up', caller: ANONYMOUS, warmUp: true } },
      );
      if (response.body.kind === 'single' && wasPlanned(response.body.singleResult)) planned += 1;
    }
    return planned;
  }

  async close(): Promise<void> {
    await this.server.stop();
    await this.closePools();
  }
}
