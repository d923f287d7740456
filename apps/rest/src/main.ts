/** Entry point of the REST facade process. */
import { createLogger } from '@platform/logging';
import { runService } from '@platform/service';
import { loadRestEnvironment } from './environment';
import { createRestApp } from './app';
import { GatewayClient } from './gateway/gateway-client';

async function main(): Promise<void> {
  const env = loadRestEnvironment();
  const logger = createLogger('rest', env.LOG_LEVEL);
  const gateway = new GatewayClient(env.GATEWAY_URL, env.GATEWAY_TIMEOUT_MS);
  const app = createRestApp({ env, logger, gateway });
  await runService({
    name: 'rest',
    host: env.HOST,
    port: env.PORT,
    logger,
    handler: app,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    onShutdown: () => gateway.close(),
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`rest failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
