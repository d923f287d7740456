/**
 * The federation gateway over the supergraph composed at build time (so it boots while a subgraph is down): forwards
 * the caller's credentials and request id to each subgraph, reaches them over undici keep-alive pools with a deadline,
 * and turns an unreachable subgraph into SERVICE_UNAVAILABLE for the fields that need it. The gateway process serves
 * it over HTTP; the REST facade can run the same executor in-process (GATEWAY_MODE=embedded).
 */
import { ApolloGateway, type GraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLError } from 'graphql';
import { CLIENT_IP_HEADER, FACADE_CALL_HEADER, SUBGRAPH_SECRET_HEADER } from '@platform/auth';
import type { Logger } from '@platform/logging';
import { isTimeout, timeUpstream } from '@platform/metrics';
import type { SubgraphReadCache } from '@platform/read-cache';
import { countingQueryPlanCache } from './query-plan-cache';
import { createSubgraphPools, type SubgraphAnswer, type SubgraphPools } from './subgraph-pools';
import type { WarmUpContext } from './warm-up';

/** What a supergraph operation carries to the subgraphs (or, `warmUp`, that it is a dry run that reaches none). */
export interface FederationContext extends WarmUpContext {
  requestId: string;
  authorization: string | undefined;
  apiKey: string | undefined;
  /** The end client's IP (the login throttle at the auth subgraph counts per IP); absent: not known. */
  clientIp?: string | undefined;
  /** The REST facade's fixed operations (proven by x-facade-proof, or embedded): REST's `limit` may reach 1000. */
  facade?: boolean | undefined;
}

export interface SupergraphGatewayOptions {
  supergraphSdl: string;
  /** Subgraph name -> URL; overrides the URLs recorded in the supergraph. */
  subgraphUrls: Record<string, string>;
  subgraphTimeoutMs: number;
  /** SUBGRAPH_SECRET, presented on every subgraph call. */
  subgraphSecret: string;
  logger: Logger;
  /** Query answers kept per subgraph, body and caller's rights (docs/decisions/0017-read-cache.md); absent: none. */
  readCache?: SubgraphReadCache | undefined;
}

export interface SupergraphGateway {
  gateway: ApolloGateway;
  /** Closes the subgraph connection pools (after the ApolloServer using the gateway stopped). */
  close(): Promise<void>;
}

type GatewayResponse = Awaited<ReturnType<GraphQLDataSource['process']>>;

/**
 * One subgraph, as the query planner calls it: the fetch as a JSON POST with the caller's `Authorization` and request
 * id. What @apollo/gateway's RemoteGraphQLDataSource does, without its node-fetch Headers and Request objects and
 * without APQ or cache-control (neither is used here). A non-2xx answer becomes the same GraphQLError it would give
 * (`<status>: <text>`, UNAUTHENTICATED / FORBIDDEN for 401 / 403); no answer, a proxy's 502/503/504 or a body that is
 * not a JSON object means the subgraph is unavailable: SERVICE_UNAVAILABLE, not a wrong query.
 */
class SubgraphDataSource implements GraphQLDataSource<FederationContext> {
  constructor(
    /** The subgraph's name in the supergraph: the `upstream` label of its call metrics. */
    private readonly name: string,
    private readonly url: string,
    private readonly pools: SubgraphPools,
    private readonly subgraphSecret: string,
    private readonly onUnavailable: (url: string, error: Error) => void,
    private readonly readCache: SubgraphReadCache | undefined,
  ) {}

  async process({
    request,
    context,
  }: GraphQLDataSourceProcessOptions<FederationContext>): Promise<GatewayResponse> {
    if (!request.query) throw new Error('Missing query');
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      [SUBGRAPH_SECRET_HEADER]: this.subgraphSecret,
    };
    if ('requestId' in context) {
      const ctx = context as FederationContext;
      // A dry run (plans warmed at start) plans the fetches but sends none.
      if (ctx.warmUp) return {};
      if (ctx.authorization) headers['authorization'] = ctx.authorization;
      headers['x-request-id'] = ctx.requestId;
      if (ctx.clientIp) headers[CLIENT_IP_HEADER] = ctx.clientIp;
      if (ctx.facade) headers[FACADE_CALL_HEADER] = '1';
    }
    const body = JSON.stringify({
      query: request.query,
      variables: request.variables,
      operationName: request.operationName,
      ...(request.extensions ? { extensions: request.extensions } : {}),
    });
    const cached = await this.readCache?.lookup({
      subgraph: this.name,
      operation: operationOf(request.query),
      body,
      authorization: headers['authorization'],
      facade: headers[FACADE_CALL_HEADER] === '1',
    });
    // Parsed per request: the executor merges later fetches into the objects it is given.
    if (cached?.body !== undefined) return JSON.parse(cached.body) as GatewayResponse;
    let answer: SubgraphAnswer;
    let payload: unknown;
    const done = timeUpstream(this.name);
    try {
      answer = await this.pools.post(this.url, headers, body);
      payload =
        answer.contentType.startsWith('application/json') ||
        answer.contentType.startsWith('application/graphql-response+json')
          ? (JSON.parse(answer.body) as unknown)
          : answer.body;
    } catch (error) {
      done(isTimeout(error) ? 'timeout' : 'unavailable');
      throw this.unavailable(error instanceof Error ? error : new Error(String(error)));
    }
    if (answer.status === 502 || answer.status === 503 || answer.status === 504) {
      done('unavailable');
      throw this.unavailable(new Error(`${answer.status}: ${answer.statusText}`));
    }
    const failed =
      answer.status < 200 ||
      answer.status >= 300 ||
      typeof payload !== 'object' ||
      payload === null ||
      Array.isArray((payload as { errors?: unknown }).errors);
    done(failed ? 'error' : 'ok');
    if (answer.status < 200 || answer.status >= 300) {
      const code =
        answer.status === 401 ? 'UNAUTHENTICATED' : answer.status === 403 ? 'FORBIDDEN' : undefined;
      throw new GraphQLError(`${answer.status}: ${answer.statusText}`, {
        extensions: {
          response: { url: this.url, status: answer.status, statusText: answer.statusText, body: payload },
          ...(code ? { code } : {}),
        },
      });
    }
    if (typeof payload !== 'object' || payload === null) {
      throw this.unavailable(new Error('Expected a JSON object from the subgraph'));
    }
    if (!failed) cached?.keep(answer.body);
    return payload as GatewayResponse;
  }

  private unavailable(error: Error): GraphQLError {
    this.onUnavailable(this.url, error);
    return new GraphQLError('Service temporarily unavailable', {
      extensions: { code: 'SERVICE_UNAVAILABLE' },
    });
  }
}

/**
 * The kind of operation a fetch sends, from the planner's text (one operation per fetch; the planner gives no document
 * unless `exposeDocumentNodeInFetchNode`): `{ ... }` is a query.
 */
function operationOf(query: string): string | undefined {
  const text = query.trimStart();
  if (text.startsWith('{')) return 'query';
  return /^(query|mutation|subscription)\b/.exec(text)?.[1];
}

export function createSupergraphGateway(options: SupergraphGatewayOptions): SupergraphGateway {
  const pools = createSubgraphPools(options.subgraphTimeoutMs);
  const onUnavailable = (url: string, error: Error) => {
    const timedOut = isTimeout(error);
    options.logger.warn(
      { subgraph: url, reason: timedOut ? 'timeout' : error.message },
      'subgraph unavailable',
    );
  };
  const gateway = new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    // The gateway's own default store (30 MiB LRU), counted: graphql_query_plan_cache_requests_total.
    queryPlannerConfig: { cache: countingQueryPlanCache() },
    buildService: ({ name, url }) => {
      const target = options.subgraphUrls[name] ?? url;
      if (!target) throw new Error(`no URL configured for subgraph ${name}`);
      return new SubgraphDataSource(name, target, pools, options.subgraphSecret, onUnavailable, options.readCache);
    },
    logger: {
      debug: () => undefined,
      info: (message: unknown) => options.logger.info(String(message)),
      warn: (message: unknown) => options.logger.warn(String(message)),
      error: (message: unknown) => options.logger.error(String(message)),
    },
  });
  return {
    gateway,
    close: async () => {
      await pools.close();
      await options.readCache?.close();
    },
  };
}
