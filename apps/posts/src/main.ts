/** Entry point of the posts subgraph process. */
import { isProduction } from '@platform/config';
import { createLogger } from '@platform/logging';
import { connectMongo } from '@platform/mongo';
import { runService } from '@platform/service';
import { loadPostsEnvironment } from './environment';
import { createPostsApp } from './app';

async function main(): Promise<void> {
  const env = loadPostsEnvironment();
  const logger = createLogger('posts', env.LOG_LEVEL);
  const mongo = await connectMongo(env.MONGO_URL, env.MONGO_DB, 'posts');
  const app = await createPostsApp({
    db: mongo.db,
    logger,
    jwtSecret: env.jwtSecret,
    production: isProduction(env),
    maxBodyBytes: env.MAX_BODY_BYTES,
  });
  await runService({
    name: 'posts',
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
  process.stderr.write(`posts failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
