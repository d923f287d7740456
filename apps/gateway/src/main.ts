/** Entry point of the gateway process. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProduction } from '@platform/config';
import { createLogger } from '@platform/logging';
import { runService } from '@platform/service';
import { loadGatewayEnvironment } from './environment';
import { createGatewayApp } from './app';

async function main(): Promise<void> {
  const env = loadGatewayEnvironment();
  const logger = createLogger('gateway', env.LOG_LEVEL);
  const supergraphSdl = readFileSync(env.SUPERGRAPH_PATH ?? join(__dirname, 'supergraph.graphql'), 'utf8');
  const app = await createGatewayApp({
    supergraphSdl,
    subgraphUrls: {
      users: env.USERS_SUBGRAPH_URL,
      items: env.ITEMS_SUBGRAPH_URL,
      auth: env.AUTH_SUBGRAPH_URL,
      posts: env.POSTS_SUBGRAPH_URL,
    },
    logger,
    production: isProduction(env),
    introspection: env.GRAPHQL_INTROSPECTION,
    maxBodyBytes: env.MAX_BODY_BYTES,
    subgraphTimeoutMs: env.SUBGRAPH_TIMEOUT_MS,
  });
  await runService({
    name: 'gateway',
    host: env.HOST,
    port: env.PORT,
    logger,
    handler: app.handler,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    onShutdown: () => app.server.stop(),
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
