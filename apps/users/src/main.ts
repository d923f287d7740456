/** Entry point of the users subgraph process. */
import { createLogger } from '@platform/logging';
import { connectMongo, ensureIndexes } from '@platform/mongo';
import { InternalGraphQLClient, runService } from '@platform/service';
import { isProduction } from '@platform/config';
import { loadUsersEnvironment } from './environment';
import { createUsersApp } from './app';
import { userIndexes } from './data-access/user-repository';
import { AuthCredentialStore } from './data-access/auth-credential-store';

async function main(): Promise<void> {
  const env = loadUsersEnvironment();
  const logger = createLogger('users', env.LOG_LEVEL);
  const mongo = await connectMongo(env.MONGO_URL, env.MONGO_DB, 'users');
  await ensureIndexes(mongo.db, userIndexes);
  const authClient = new InternalGraphQLClient(env.AUTH_SUBGRAPH_URL, 'users', env.jwtSecret);
  const app = await createUsersApp({
    db: mongo.db,
    logger,
    jwtSecret: env.jwtSecret,
    production: isProduction(env),
    maxBodyBytes: env.MAX_BODY_BYTES,
    credentials: new AuthCredentialStore(authClient),
  });
  await runService({
    name: 'users',
    host: env.HOST,
    port: env.PORT,
    logger,
    handler: app.handler,
    readiness: () => mongo.ping(),
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    onShutdown: async () => {
      await app.server.stop();
      await authClient.close();
      await mongo.close();
    },
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`users failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
