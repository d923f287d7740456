/**
 * The federation gateway process: serves the supergraph executor of @platform/federation (credentials and request id
 * forwarded, a deadline on every subgraph call) over HTTP and masks internal errors. Hardening: rate limits,
 * GraphQL Armor's operation limits (libs/service), no batching, helmet and CORS headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { maskGraphQLError } from '@platform/errors';
import {
  CLIENT_IP_HEADER,
  createSupergraphGateway,
  warmUpPlugin,
  WARM_UP_HEADER,
  type AccessTokenStatus,
  type ApiKeyExchange,
  type FederationContext,
} from '@platform/federation';
import type { Logger } from '@platform/logging';
import { FACADE_PROOF_HEADER } from '@platform/rate-limit';
import { createGraphQLHandler, graphqlLimits, graphqlMetricsPlugin, type GraphQLLimits } from '@platform/service';
import { clientIp, type GatewayRateLimiter } from './gateway-rate-limit';
import { createHttpHardening } from './http-hardening';

export type GatewayContext = FederationContext;

export interface GatewayAppOptions {
  supergraphSdl: string;
  subgraphUrls: Record<string, string>;
  logger: Logger;
  production: boolean;
  introspection: boolean;
  maxBodyBytes: number;
  subgraphTimeoutMs: number;
  /** SUBGRAPH_SECRET, presented on every subgraph call. */
  subgraphSecret: string;
  /** TRUST_PROXY: which X-Forwarded-For entry names the client (for the login throttle at the auth subgraph). */
  trustProxy: string;
  /** Turns an `x-api-key` (without `Authorization`) into a short-lived JWT for the subgraphs. */
  apiKeys: Pick<ApiKeyExchange, 'forwardedAuthorization'>;
  /** Refuses the bearer token of a deleted or deactivated user, or one issued before a password reset. */
  tokenStatus: Pick<AccessTokenStatus, 'check'>;
  limits: GraphQLLimits;
  /** CORS allowlist (comma-separated origins, or `*`); empty: no cross-origin access. */
  corsOrigins: string;
  /** Per-identity budget; absent: no rate limit at the gateway. */
  rateLimiter?: GatewayRateLimiter;
  /** True when the presented x-facade-proof is the REST facade's: only the facade may ask for dry runs (warm-up). */
  isFacade: (presented: string | string[] | undefined) => boolean;
}

export interface GatewayApp {
  server: ApolloServer<GatewayContext>;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Closes the subgraph connection pools (after server.stop()). */
  close(): Promise<void>;
}

export async function createGatewayApp(options: GatewayAppOptions): Promise<GatewayApp> {
  const { gateway, close } = createSupergraphGateway(options);
  const limits = graphqlLimits<GatewayContext>(options.limits, {
    production: options.production,
    isFacadeCall: (context) => context.facade === true,
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
    // Armor's rules run in validation: a refused document never reaches the query planner or a subgraph.
    validationRules: limits.validationRules,
    plugins: [
      // No subgraph declares cache hints; the plugin would only add per-request work.
      ApolloServerPluginCacheControlDisabled(),
      graphqlMetricsPlugin<GatewayContext>(),
      ...limits.plugins,
      warmUpPlugin<GatewayContext>(),
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
      await options.tokenStatus.check(req.headers.authorization, requestId);
      // A key alone is exchanged once here (a bad key fails the whole operation with 401).
      const authorization = await options.apiKeys.forwardedAuthorization(req.headers.authorization, apiKey, requestId);
      const facade = options.isFacade(req.headers[FACADE_PROOF_HEADER]);
      const warmUp = facade && req.headers[WARM_UP_HEADER] === '1';
      // The facade names its own client; anyone else is the client (behind TRUST_PROXY's proxies).
      const forwardedIp = facade ? req.headers[CLIENT_IP_HEADER] : undefined;
      const ip = typeof forwardedIp === 'string' && forwardedIp !== '' ? forwardedIp : clientIp(req, options.trustProxy);
      return { requestId, authorization, apiKey, warmUp, facade, clientIp: ip };
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
  return { server, handler, close };
}
