/**
 * The federation gateway process: serves the supergraph executor of @platform/federation (credentials and request id
 * forwarded, a deadline on every subgraph call) over HTTP and masks internal errors. Hardening: rate limits,
 * GraphQL Armor's operation limits (libs/service), no batching, helmet and CORS headers. Also the GraphQL IDE
 * (ide/graphiql-page.ts) and persisted operations (persisted-operations.ts: APQ in Redis, or trusted documents only).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { printSchema } from 'graphql';
import { Deadline, DEFAULT_COMMIT_TIMEOUT_MS } from '@platform/contracts';
import { maskGraphQLError } from '@platform/errors';
import {
  CLIENT_IP_HEADER,
  createSupergraphGateway,
  warmUpPlugin,
  WARM_UP_HEADER,
  type Callers,
  type FederationContext,
  type PresentedCaller,
  type SupergraphGatewayOptions,
} from '@platform/federation';
import { FACADE_PROOF_HEADER } from '@platform/rate-limit';
import { createGraphQLHandler, graphqlLimits, type GraphQLLimits } from '@platform/graphql-server';
import { graphqlFaultLogPlugin, graphqlMetricsPlugin, responseCompression } from '@platform/service';
import { clientIp, type GatewayRateLimiter } from './gateway-rate-limit';
import { FieldUsage, fieldUsagePlugin } from './field-usage';
import { createHttpHardening } from './http-hardening';
import { createGraphiQL } from './ide/graphiql-page';
import {
  apqRegistrationPlugin,
  persistedQueryHashMismatch,
  TrustedDocumentsCache,
  unlistedDocumentRefusal,
  type RedisApqCache,
} from './persisted-operations';

export type GatewayContext = FederationContext;

/** The supergraph, its subgraphs and the logger as createSupergraphGateway takes them, and the gateway's own. */
export interface GatewayAppOptions extends SupergraphGatewayOptions {
  production: boolean;
  introspection: boolean;
  maxBodyBytes: number;
  /** TRUST_PROXY: which X-Forwarded-For entry names the client (for the login throttle at the auth subgraph). */
  trustProxy: string;
  /**
   * Establishes each request's caller once (credential-checks.ts): the token's signature before the rate limit, then
   * the account behind it (a deleted, deactivated, demoted user or a password reset: 401) or the `x-api-key`'s verdict,
   * exchanged for a short-lived JWT for the subgraphs.
   */
  callers: Pick<Callers, 'present' | 'withGenerations' | 'resolve'>;
  limits: GraphQLLimits;
  /** CORS allowlist (comma-separated origins, or `*`); empty: no cross-origin access. */
  corsOrigins: string;
  /** Per-identity budget; absent: no rate limit at the gateway. */
  rateLimiter?: GatewayRateLimiter;
  /** True when the presented x-facade-proof is the REST facade's: only the facade may ask for dry runs (warm-up). */
  isFacade: (presented: string | string[] | undefined) => boolean;
  /** The GraphQL IDE; absent: none. */
  ide?: { enabled: boolean; password: string | undefined; assetsDir: string } | undefined;
  /**
   * APQ registrations (shared by the replicas, each charged to its client); absent: Apollo's in-memory cache of this
   * process (an LRU: one client may evict others' registrations, not grow it).
   */
  apqCache?: RedisApqCache | undefined;
  /** Trusted-documents mode: operation id -> document; only these run. */
  trustedDocuments?: ReadonlyMap<string, string> | undefined;
  /** COMPRESSION_MIN_BYTES: answers at least this large are compressed per Accept-Encoding; undefined: none. */
  compressionMinBytes?: number | undefined;
}

/** A refusal that lets the facade's calls (its proof header checked) through. */
const facadeExempt =
  (
    refuse: (request: { body: unknown; search: string }) => ReturnType<ReturnType<typeof unlistedDocumentRefusal>>,
    isFacade: GatewayAppOptions['isFacade'],
  ) =>
  (request: { body: unknown; search: string; headers: IncomingMessage['headers'] }) =>
    isFacade(request.headers[FACADE_PROOF_HEADER]) ? undefined : refuse(request);

export interface GatewayApp {
  server: ApolloServer<GatewayContext>;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Per-operation and per-field usage counts (field-usage.ts), for the metrics exporter. */
  fieldUsage: FieldUsage;
  /** Closes the subgraph connection pools (after server.stop()). */
  close(): Promise<void>;
}

export async function createGatewayApp(options: GatewayAppOptions): Promise<GatewayApp> {
  const { gateway, close } = createSupergraphGateway(options);
  const trusted = options.trustedDocuments;
  const unlisted = trusted ? unlistedDocumentRefusal(trusted) : undefined;
  let apiSchemaSdl = '';
  const fieldUsage = new FieldUsage();
  const limits = graphqlLimits<GatewayContext>(options.limits, {
    production: options.production,
    isFacadeCall: (context) => context.facade === true,
  });
  const server = new ApolloServer<GatewayContext>({
    gateway,
    formatError: maskGraphQLError,
    includeStacktraceInErrorResponses: false,
    // SIGTERM belongs to the service runtime (libs/service run-service.ts), which drains and then stops this server.
    stopOnTerminationSignals: false,
    introspection: options.introspection && !options.production,
    csrfPrevention: true,
    // One operation per HTTP request, so the rate limit counts operations.
    allowBatchedHttpRequests: false,
    // Bounds the parser's work on an oversized document before validation sees it.
    parseOptions: { maxTokens: 10_000 },
    // Armor's rules run in validation: a refused document never reaches the query planner or a subgraph.
    validationRules: limits.validationRules,
    persistedQueries: trusted
      ? { cache: new TrustedDocumentsCache(trusted), ttl: null }
      : options.apqCache
        ? { cache: options.apqCache, ttl: null }
        : {},
    plugins: [
      // No subgraph declares cache hints; the plugin would only add per-request work.
      ApolloServerPluginCacheControlDisabled(),
      graphqlMetricsPlugin<GatewayContext>(),
      ...limits.plugins,
      warmUpPlugin<GatewayContext>(),
      fieldUsagePlugin<GatewayContext>(fieldUsage, (context) => context.warmUp === true),
      // Every answer that becomes a 5xx logs its cause (the answer is masked), with the request id.
      graphqlFaultLogPlugin<GatewayContext>(options.logger),
      // Apollo's landing pages load from a CDN; browsers get the gateway's own GraphiQL (ide/) instead.
      ApolloServerPluginLandingPageDisabled(),
      ...(options.apqCache && !trusted ? [apqRegistrationPlugin<GatewayContext>(options.apqCache)] : []),
      {
        async serverWillStart() {
          return {
            schemaDidLoadOrUpdate({ apiSchema }) {
              apiSchemaSdl = printSchema(apiSchema);
            },
          };
        },
      },
    ],
  });
  await server.start();
  const ide = createGraphiQL({
    enabled: options.ide?.enabled ?? false,
    production: options.production,
    password: options.ide?.password,
    assetsDir: options.ide?.assetsDir ?? '',
    apiSchemaSdl: () => apiSchemaSdl,
  });
  /** Each request's credential, presented (its token's signature verified) once, before the rate limit. */
  const presentedCallers = new WeakMap<IncomingMessage, PresentedCaller>();
  const presentOf = (req: IncomingMessage): PresentedCaller => {
    const apiKey = typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : undefined;
    const presented = options.callers.present(req.headers.authorization, apiKey);
    presentedCallers.set(req, presented);
    return presented;
  };
  const graphqlHandler = createGraphQLHandler<GatewayContext>({
    server,
    maxBodyBytes: options.maxBodyBytes,
    logger: options.logger,
    // The facade's documents are built from the resource declarations (REST `expand`/`fields`: ADR 0027), so its calls
    // are trusted by their proof, as their dry runs are; every other caller runs only what the manifest lists.
    refuse: unlisted
      ? (request) => persistedQueryHashMismatch(request) ?? facadeExempt(unlisted, options.isFacade)(request)
      : persistedQueryHashMismatch,
    context: async (req, requestId, logger, body) => {
      // The generations this request reads, once, named by what it asks (the same request reads the same ones).
      const presented = options.callers.withGenerations(
        presentedCallers.get(req) ?? presentOf(req),
        `${req.url ?? ''}\n${JSON.stringify(body ?? null)}`,
      );
      // A bad credential fails the whole operation (401); a key alone is exchanged here.
      const caller = await options.callers.resolve(presented, requestId, true);
      const facade = options.isFacade(req.headers[FACADE_PROOF_HEADER]);
      const warmUp = facade && req.headers[WARM_UP_HEADER] === '1';
      // The facade names its own client; anyone else is the client (behind TRUST_PROXY's proxies).
      const forwardedIp = facade ? req.headers[CLIENT_IP_HEADER] : undefined;
      const ip =
        typeof forwardedIp === 'string' && forwardedIp !== ''
          ? forwardedIp
          : clientIp(req, options.trustProxy);
      // The operation's write deadline starts once the caller is known (ADR 0020): every subgraph fetch hands what is
      // left of it down, and a mutation's fetch waits for it plus the commit bound.
      const deadline = Deadline.in(options.subgraphTimeoutMs, options.commitTimeoutMs ?? DEFAULT_COMMIT_TIMEOUT_MS);
      return { requestId, caller, snapshot: presented.snapshot, warmUp, facade, clientIp: ip, deadline, logger };
    },
  });
  const hardening = createHttpHardening({ corsOrigins: options.corsOrigins });
  const { rateLimiter } = options;
  const compress = responseCompression(options.compressionMinBytes);
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    compress(req, res, () => serve(req, res));
  };
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    if (!hardening(req, res)) return;
    if (ide(req, res)) return;
    const presented = presentOf(req);
    if (!rateLimiter) {
      graphqlHandler(req, res);
      return;
    }
    rateLimiter.admit(req, res, presented).then(
      (admitted) => {
        if (admitted) graphqlHandler(req, res);
      },
      (error: unknown) => {
        options.logger.error({ err: error }, 'rate limiter failed');
        if (!res.headersSent) graphqlHandler(req, res);
      },
    );
  };
  return { server, handler, fieldUsage, close };
}
