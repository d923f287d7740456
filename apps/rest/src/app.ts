/** Builds the REST facade as an express app from its dependencies; main.ts listens, tests start it on port 0. */
import express, { type Express } from 'express';
import type { Logger } from '@platform/logging';
import type { RestEnvironment } from './environment';
import type { GatewayClient } from './gateway/gateway-client';
import { createRouter } from './http/register-routes';
import { createErrorHandler, notFoundHandler } from './http/error-handler';
import { requestId } from './http/request-context';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { renderDocsPage } from './openapi/docs-page';
import { allRoutes } from './routes';

export interface RestAppDeps {
  env: RestEnvironment;
  logger: Logger;
  gateway: GatewayClient;
}

export function createRestApp(deps: RestAppDeps): Express {
  const { env, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestId);

  const openApi = buildOpenApiDocument(allRoutes, env);
  const openApiJson = JSON.stringify(openApi);
  const docsHtml = renderDocsPage(openApi);
  app.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(openApiJson);
  });
  app.get('/docs', (_req, res) => {
    res.type('text/html').send(docsHtml);
  });

  app.use(express.json({ limit: env.MAX_BODY_BYTES, strict: true, type: ['application/json', 'application/*+json'] }));
  app.use(express.urlencoded({ limit: env.MAX_BODY_BYTES, extended: false, parameterLimit: 100 }));

  app.use(createRouter(allRoutes, { gateway: deps.gateway, env }));
  app.use(notFoundHandler);
  app.use(createErrorHandler(env, logger));
  return app;
}
