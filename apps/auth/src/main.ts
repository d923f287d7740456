/** Entry point of the auth subgraph process. */
import { isProduction } from '@platform/config';
import { createLogger } from '@platform/logging';
import { connectMongo, ensureIndexes } from '@platform/mongo';
import { runService } from '@platform/service';
import { loadAuthEnvironment } from './environment';
import { createAuthApp } from './app';
import { credentialIndexes } from './data-access/credential-repository';

async function main(): Promise<void> {
  const env = loadAuthEnvironment();
  const logger = createLogger('auth', env.LOG_LEVEL);
  const mongo = await connectMongo(env.MONGO_URL, env.MONGO_DB, 'auth');
  await ensureIndexes(mongo.db, credentialIndexes);
  const app = await createAuthApp({
    db: mongo.db,
    logger,
    jwtSecret: env.jwtSecret,
    production: isProduction(env),
    maxBodyBytes: env.MAX_BODY_BYTES,
  });
  await runService({
    name: 'auth',
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
  process.stderr.write(`auth failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
