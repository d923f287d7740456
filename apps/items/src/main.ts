/** Entry point of the items subgraph process. */
import { isProduction } from '@platform/config';
import { createLogger } from '@platform/logging';
import { connectMongo } from '@platform/mongo';
import { runService } from '@platform/service';
import { loadItemsEnvironment } from './environment';
import { createItemsApp } from './app';

async function main(): Promise<void> {
  const env = loadItemsEnvironment();
  const logger = createLogger('items', env.LOG_LEVEL);
  const mongo = await connectMongo(env.MONGO_URL, env.MONGO_DB, 'items');
  const app = await createItemsApp({
    db: mongo.db,
    logger,
    jwtSecret: env.jwtSecret,
    production: isProduction(env),
    maxBodyBytes: env.MAX_BODY_BYTES,
  });
  await runService({
    name: 'items',
    host: env.HOST,
    port: env.PORT,
    logger,
    handler: app.handler,
    readiness: () => mongo.ping(),
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    onShutdown: async () => {
      await app.server.stop();
      await mongo.close();
    },
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`items failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
