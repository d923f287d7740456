/** Entry point of the REST facade process. */
import { createLogger } from '@platform/logging';
import { runService } from '@platform/service';
import { loadRestEnvironment } from './environment';
import { createRestApp } from './app';
import { GatewayClient } from './gateway/gateway-client';
import { facadeProofHeaders } from '@platform/rate-limit';
import { createRateLimiting } from './http/rate-limit';

async function main(): Promise<void> {
  const env = loadRestEnvironment();
  const logger = createLogger('rest', env.LOG_LEVEL);
  const gateway = new GatewayClient(
    env.GATEWAY_URL,
    env.GATEWAY_TIMEOUT_MS,
    facadeProofHeaders(env.jwtSecret),
  );
  const rateLimiting = createRateLimiting(env, logger);
  // Serve only once the shared limits are reachable (bounded: a Redis outage must not keep the facade down).
  if (!(await rateLimiting.ready(3_000)))
    logger.warn('rate limiter: Redis not reachable at start; limiting in-process until it is');
  const app = createRestApp({ env, logger, gateway, rateLimiting });
  await runService({
    name: 'rest',
    host: env.HOST,
    port: env.PORT,
    logger,
    handler: app,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    shutdownDelayMs: env.SHUTDOWN_DELAY_MS,
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    onShutdown: async () => {
      await gateway.close();
      await rateLimiting.close();
    },
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`rest failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
