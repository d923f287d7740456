/**
 * The federation gateway: serves the supergraph composed at build time (so it boots while a subgraph is down),
 * forwards the caller's credentials and request id to each subgraph, and masks internal errors. Hardening: rate limits,
 * depth / alias / cost limits, no batching, helmet and CORS headers, and a deadline on every subgraph call (an
 * unreachable or slow subgraph becomes a SERVICE_UNAVAILABLE error for the fields that need it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ApolloGateway,
  RemoteGraphQLDataSource,
  type GraphQLDataSourceProcessOptions,
} from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { GraphQLError } from 'graphql';
import { maskGraphQLError } from '@platform/errors';
import type { Logger } from '@platform/logging';
import { createGraphQLHandler } from '@platform/service';
import type { ApiKeyExchange } from './api-key-exchange';
import type { GatewayRateLimiter } from './gateway-rate-limit';
import { aliasLimitRule, costLimitPlugin, depthLimitRule, type GraphQLLimits } from './graphql-limits';
import { createHttpHardening } from './http-hardening';
import { createSubgraphFetcher } from './subgraph-fetcher';

export interface GatewayContext {
  requestId: string;
  authorization: string | undefined;
  apiKey: string | undefined;
}

export interface GatewayAppOptions {
  supergraphSdl: string;
  subgraphUrls: Record<string, string>;
  logger: Logger;
  production: boolean;
  introspection: boolean;
  maxBodyBytes: number;
  subgraphTimeoutMs: number;
  /** Turns an `x-api-key` (without `Authorization`) into a short-lived JWT for the subgraphs. */
  apiKeys: Pick<ApiKeyExchange, 'authorizationFor'>;
  limits: GraphQLLimits;
  /** CORS allowlist (comma-separated origins, or `*`); empty: no cross-origin access. */
  corsOrigins: string;
  /** Per-identity budget; absent: no rate limit at the gateway. */
  rateLimiter?: GatewayRateLimiter;
}

export interface GatewayApp {
  server: ApolloServer<GatewayContext>;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Closes the subgraph connection pools (after server.stop()). */
  close(): Promise<void>;
}

const FORWARDED_HEADERS = ['authorization', 'x-request-id'] as const;

class ForwardingDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<GatewayContext>): void {
    if (!request.http || !('requestId' in context)) return;
    const ctx = context as GatewayContext;
    if (ctx.authorization) request.http.headers.set(FORWARDED_HEADERS[0], ctx.authorization);
    request.http.headers.set(FORWARDED_HEADERS[1], ctx.requestId);
  }

  /** No answer (refused, reset, timed out) or a proxy's 502/503/504: the subgraph is unavailable, not the query wrong. */
  override didEncounterError(error: Error): void {
    const status =
      error instanceof GraphQLError
        ? (error.extensions['response'] as { status?: number } | undefined)?.status
        : undefined;
    if (error instanceof GraphQLError && !(status === 502 || status === 503 || status === 504)) throw error;
    this.onUnavailable?.(this.url ?? '', error);
    throw new GraphQLError('Service temporarily unavailable', {
      extensions: { code: 'SERVICE_UNAVAILABLE' },
    });
  }

  onUnavailable?: (url: string, error: Error) => void;
}

export async function createGatewayApp(options: GatewayAppOptions): Promise<GatewayApp> {
  const subgraphs = createSubgraphFetcher(options.subgraphTimeoutMs);
  const onUnavailable = (url: string, error: Error) =>
    options.logger.warn(
      { subgraph: url, reason: error.name === 'TimeoutError' ? 'timeout' : error.message },
      'subgraph unavailable',
    );
  const gateway = new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    buildService: ({ name, url }) => {
      const target = options.subgraphUrls[name] ?? url;
      if (!target) throw new Error(`no URL configured for subgraph ${name}`);
      const source = new ForwardingDataSource({ url: target, fetcher: subgraphs.fetcher });
      source.onUnavailable = onUnavailable;
      return source;
    },
    logger: {
      debug: () => undefined,
      info: (message: unknown) => options.logger.info(String(message)),
      warn: (message: unknown) => options.logger.warn(String(message)),
      error: (message: unknown) => options.logger.error(String(message)),
    },
  });
  const server = new ApolloServer<GatewayContext>({
    gateway,
    formatError: maskGraphQLError,
    includeStacktraceInErrorResponses: false,
    introspection: options.introspection && !options.production,
    csrfPrevention: true,
    // One operation per HTTP request, so the rate limit counts operations.
    allowBatchedHttpRequests: false,
    // Bounds the parser's work on an oversized document before validation sees it.
    parseOptions: { maxTokens: 10_000 },
    validationRules: [depthLimitRule(options.limits.maxDepth), aliasLimitRule(options.limits.maxAliases)],
    plugins: [
      costLimitPlugin<GatewayContext>(options.limits.maxCost),
      options.production
        ? ApolloServerPluginLandingPageDisabled()
        : ApolloServerPluginLandingPageLocalDefault({ embed: false, includeCookies: false }),
    ],
  });
  await server.start();
  const graphqlHandler = createGraphQLHandler<GatewayContext>({
    server,
    maxBodyBytes: options.maxBodyBytes,
    logger: options.logger,
    context: async (req, requestId) => {
      const apiKey = typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : undefined;
      // A bearer token wins; a key alone is exchanged once here (a bad key fails the whole operation with 401).
      const authorization =
        req.headers.authorization ||
        (apiKey !== undefined ? await options.apiKeys.authorizationFor(apiKey, requestId) : undefined);
      return { requestId, authorization, apiKey };
    },
  });
  const hardening = createHttpHardening({ production: options.production, corsOrigins: options.corsOrigins });
  const { rateLimiter } = options;
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    if (!hardening(req, res)) return;
    if (!rateLimiter) {
      graphqlHandler(req, res);
      return;
    }
    rateLimiter.admit(req, res).then(
      (admitted) => {
        if (admitted) graphqlHandler(req, res);
      },
      (error: unknown) => {
        options.logger.error({ err: error }, 'rate limiter failed');
        if (!res.headersSent) graphqlHandler(req, res);
      },
    );
  };
  return { server, handler, close: () => subgraphs.close() };
}
