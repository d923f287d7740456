/**
 * The federation gateway: serves the supergraph composed at build time (so it boots while a subgraph is down),
 * forwards the caller's credentials and request id to each subgraph, and masks internal errors.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApolloGateway, RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { maskGraphQLError } from '@platform/errors';
import type { Logger } from '@platform/logging';
import { createGraphQLHandler } from '@platform/service';

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
}

export interface GatewayApp {
  server: ApolloServer<GatewayContext>;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

const FORWARDED_HEADERS = ['authorization', 'x-request-id'] as const;

class ForwardingDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<GatewayContext>): void {
    if (!request.http || !('requestId' in context)) return;
    const ctx = context as GatewayContext;
    if (ctx.authorization) request.http.headers.set(FORWARDED_HEADERS[0], ctx.authorization);
    request.http.headers.set(FORWARDED_HEADERS[1], ctx.requestId);
  }
}

export async function createGatewayApp(options: GatewayAppOptions): Promise<GatewayApp> {
  const gateway = new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    buildService: ({ name, url }) => {
      const target = options.subgraphUrls[name] ?? url;
      if (!target) throw new Error(`no URL configured for subgraph ${name}`);
      return new ForwardingDataSource({ url: target });
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
    plugins: [
      options.production
        ? ApolloServerPluginLandingPageDisabled()
        : ApolloServerPluginLandingPageLocalDefault({ embed: false, includeCookies: false }),
    ],
  });
  await server.start();
  const handler = createGraphQLHandler<GatewayContext>({
    server,
    maxBodyBytes: options.maxBodyBytes,
    logger: options.logger,
    context: async (req, requestId) => ({
      requestId,
      authorization: req.headers.authorization,
      apiKey: typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : undefined,
    }),
  });
  return { server, handler };
}
