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
import { Deadline, DEFAULT_COMMIT_TIMEOUT_MS, MUTATION_SLACK_MS } from '@platform/contracts';
import { AppError, maskGraphQLError } from '@platform/errors';
import {
  ANONYMOUS,
  createSupergraphGateway,
  warmUpPlugin,
  type FederationContext,
  type SupergraphGatewayOptions,
} from '@platform/federation';
import { dataOf, graphqlFaultLogPlugin, graphqlMetricsPlugin } from '@platform/service';
import type { Logger } from '@platform/logging';
import { wasPlanned, type CallCredentials, type ErrorTranslation, type Gateway, type Operation } from './gateway-client';

/** The supergraph, its subgraphs and the logger as createSupergraphGateway takes them, and what the facade adds. */
export interface EmbeddedGatewayOptions extends SupergraphGatewayOptions {
  /** Runs after the executor stopped (e.g. closes the credential checks' clients of the auth and users subgraphs). */
  onClose?: () => Promise<void>;
}

/**
 * How long a mutation's subgraph fetch may wait at most in the facade: its client is answered at the deadline plus
 * the commit bound (`answerWithinMs`), and the real outcome, arriving later from a slow subgraph (a FerretDB insert
 * queued behind its 10 s busy timeout), is still stored for an Idempotency-Key (ADR 0020).
 */
export const LATE_OUTCOME_WAIT_MS = 30_000;

export class EmbeddedGateway implements Gateway {
  readonly answerWithinMs: number;

  private constructor(
    private readonly server: ApolloServer<FederationContext>,
    private readonly closePools: () => Promise<void>,
    private readonly timing: { deadlineMs: number; commitMs: number },
    private readonly logger: Logger,
  ) {
    // The credential checks before the operation (one call of at most the deadline, usually a cache hit), then the
    // operation's deadline, its commit bound and the slack.
    this.answerWithinMs = 2 * timing.deadlineMs + timing.commitMs + MUTATION_SLACK_MS;
  }

  static async start(options: EmbeddedGatewayOptions): Promise<EmbeddedGateway> {
    const commitMs = options.commitTimeoutMs ?? DEFAULT_COMMIT_TIMEOUT_MS;
    const { gateway, close } = createSupergraphGateway({
      ...options,
      mutationWaitMs: Math.max(LATE_OUTCOME_WAIT_MS, options.subgraphTimeoutMs + commitMs + MUTATION_SLACK_MS),
    });
    const server = new ApolloServer<FederationContext>({
      gateway,
      formatError: maskGraphQLError,
      includeStacktraceInErrorResponses: false,
      // SIGTERM belongs to the service runtime (libs/service run-service.ts): the facade drains, then closes this.
      stopOnTerminationSignals: false,
      // Only the facade's own documents run here; nothing is served over HTTP.
      introspection: false,
      plugins: [
        ApolloServerPluginLandingPageDisabled(),
        ApolloServerPluginCacheControlDisabled(),
        // The same GraphQL metrics as the gateway process (operations, errors by code).
        graphqlMetricsPlugin<FederationContext>(),
        warmUpPlugin(),
        // What becomes a 500 reaches the facade masked: its cause is logged here, with the request id.
        graphqlFaultLogPlugin<FederationContext>(options.logger),
      ],
    });
    await server.start();
    return new EmbeddedGateway(
      server,
      async () => {
        await close();
        await options.onClose?.();
      },
      { deadlineMs: options.subgraphTimeoutMs, commitMs },
      options.logger,
    );
  }

  async execute<TData, TVariables extends Record<string, unknown>>(
    op: Operation<TData, TVariables>,
    variables: NoInfer<TVariables>,
    credentials: CallCredentials,
    translate?: ErrorTranslation,
  ): Promise<TData> {
    const { requestId, clientIp, snapshot } = credentials;
    // The caller the facade established for this request (a refused credential: its 401 or 503 AppError).
    const caller = await credentials.caller();
    // The operation's write deadline starts once the caller is known (ADR 0020); the subgraph fetches hand it down.
    const deadline = Deadline.in(this.timing.deadlineMs, this.timing.commitMs);
    const response = await this.server.executeOperation<TData>(
      { query: op.document, operationName: op.name, variables },
      {
        contextValue: {
          requestId,
          caller,
          snapshot,
          clientIp,
          facade: true,
          deadline,
          logger: this.logger.child({ requestId }),
        },
      },
    );
    // The facade's documents never @defer, so the result is always a single one.
    if (response.body.kind !== 'single') throw new AppError('INTERNAL_SERVER_ERROR', 'Internal server error');
    return dataOf(response.body.singleResult, translate);
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
