/**
 * Entry point of the delivery worker: BullMQ jobs (one per delivery attempt) from the platform's Redis, each run by
 * the DeliveryProcessor against the events service's database; a sweep that re-queues what the database says is due;
 * health on PORT, metrics on METRICS_PORT. On SIGTERM it stops taking jobs and lets the running attempts finish.
 */
// First: tracing hooks the modules the imports below load (libs/tracing/src/tracing.ts).
import './tracing';
import { Worker } from 'bullmq';
import { closeRedis, connectRedis, isProduction, queueConnection } from '@platform/config';
import { SecretBox } from '@platform/events';
import { createLogger } from '@platform/logging';
import { connectMongo, EventRelay, monitorMongo } from '@platform/mongo';
import { createSubgraphWrites, RedisGenerations } from '@platform/read-cache';
import { runService } from '@platform/service';
import {
  DELIVERY_QUEUE,
  DeliveryQueue,
  DeliveryStore,
  EventFanOut,
  EventStore,
  WebhookStore,
  localTransport,
  ownerDeliveryBudget,
  type DeliveryJob,
} from '@platform/webhooks';
import { loadDeliveriesEnvironment } from './environment';
import { DeliveryProcessor } from './delivery-processor';
import { systemResolver } from './egress';
import { usersOwnerRights } from './owner-rights';
import { WebhookSender } from './sender';
import { EVENTS_SUBGRAPH, WorkerWrites } from './worker-writes';

const start = async () => {
  const env = loadDeliveriesEnvironment();
  const logger = createLogger('deliveries', env.LOG_LEVEL);
  const metrics = env.METRICS_PORT !== undefined;
  const mongo = await connectMongo(env.MONGO_URL, env.MONGO_DB, 'deliveries', {
    monitorCommands: metrics,
    ...(metrics ? { beforeConnect: monitorMongo } : {}),
    production: isProduction(env),
    allowStandalone: env.MONGO_ALLOW_STANDALONE,
  });
  // What the worker writes to the events service's database bumps the events subgraph's generations, as the
  // subgraph's own writes do: the facades keep its answers (a delivery log) under them (worker-writes.ts).
  const workerWrites = new WorkerWrites(
    createSubgraphWrites({ subgraph: EVENTS_SUBGRAPH, redisUrl: env.REDIS_URL, logger }),
  );
  const db = workerWrites.db(mongo.db);
  const events = new EventStore(db);
  const webhooks = new WebhookStore(db, new SecretBox(env.webhookSecretsKey));
  // The events subgraph owns the indexes (it creates them, or the index Job does: MONGO_INDEXES).
  const deliveries = new DeliveryStore(db);
  // Deliveries of the release before still pending get their schedule, which the sweep reads: at start, and every 10
  // minutes while a rollout may still have replicas of that release making them (a pass over the deliveries on
  // FerretDB, an index range on MongoDB; none once every replica is of this release).
  const adoptEarlier = async () => {
    const adopted = await deliveries.scheduleEarlierPending();
    if (adopted > 0) logger.info({ deliveries: adopted }, 'scheduled the pending deliveries of the release before');
  };
  await adoptEarlier();
  const adopter = setInterval(() => void adoptEarlier().catch(() => undefined), 10 * 60_000);
  adopter.unref();
  const queue = new DeliveryQueue(queueConnection(env.REDIS_URL, 'queue'), env.WEBHOOK_QUEUE_PREFIX);
  // The worker's own events fan out within the owners' budgets too (one count in Redis with the events service's).
  const budgetRedis = connectRedis(env.REDIS_URL, 500, logger, {
    purpose: 'webhook delivery budget',
    fallback: 'each process counts the owners’ deliveries on its own',
  });
  const budget = ownerDeliveryBudget({
    redis: budgetRedis,
    points: env.WEBHOOK_OWNER_DELIVERY_BUDGET,
    windowSeconds: env.WEBHOOK_OWNER_BUDGET_WINDOW_SECONDS,
  });
  const fanOut = new EventFanOut(events, webhooks, deliveries, queue, logger, budget);
  // The worker's own events (webhook.disabled) go through the events database's outbox, like every write's.
  const relay = new EventRelay({
    db,
    logger,
    transport: localTransport(fanOut, events),
    sweepAfterMs: 10_000,
  });
  const sender = new WebhookSender({
    policy: { allowLoopback: env.WEBHOOK_ALLOW_LOOPBACK, loopbackOnly: env.WEBHOOK_EGRESS === 'loopback' },
    resolver: systemResolver,
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    maxResponseBytes: env.WEBHOOK_MAX_RESPONSE_BYTES,
    httpsOnly: isProduction(env),
  });
  const owners = usersOwnerRights({
    usersUrl: env.USERS_SUBGRAPH_URL,
    jwtSecret: env.jwtSecret,
    subgraphSecret: env.subgraphSecret,
    // The owners' accounts kept under the users' generations, on the platform's one Redis (the queue's).
    generations:
      env.WEBHOOK_OWNER_CACHE_TTL_MS > 0
        ? new RedisGenerations({
            redisUrl: env.REDIS_URL,
            commandTimeoutMs: 500,
            logger,
            purpose: 'webhook owners',
            fallback: "each try asks the users subgraph for its owner's account",
          })
        : undefined,
    ttlMs: env.WEBHOOK_OWNER_CACHE_TTL_MS,
  });
  const processor = new DeliveryProcessor({
    logger,
    events,
    webhooks,
    deliveries,
    queue,
    fanOut,
    outbox: relay.outbox,
    sender,
    owners,
    schedule: env.schedule,
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    claimed: () => workerWrites.flush(),
  });
  // A job's lock outlives the longest attempt; a worker that died releases its jobs to others after it (stalled jobs).
  const lockMs = env.WEBHOOK_TIMEOUT_MS + 5_000;
  const worker = new Worker<DeliveryJob>(DELIVERY_QUEUE, (job) => workerWrites.job(() => processor.process(job.data)), {
    connection: queueConnection(env.REDIS_URL, 'worker'),
    prefix: env.WEBHOOK_QUEUE_PREFIX,
    concurrency: env.WEBHOOK_CONCURRENCY,
    lockDuration: lockMs,
    stalledInterval: lockMs,
    maxStalledCount: 1_000,
  });
  let queueDown = false;
  worker.on('error', (error) => {
    if (!queueDown)
      logger.warn({ err: { message: error.message } }, 'delivery queue: Redis unreachable; retrying');
    queueDown = true;
  });
  worker.on('ready', () => {
    if (queueDown) logger.info('delivery queue: Redis is back');
    queueDown = false;
  });
  worker.on('failed', (job, error) =>
    logger.error(
      { err: { message: error.message }, deliveryId: job?.data.deliveryId },
      'delivery job failed',
    ),
  );
  const sweep = () => processor.sweep().catch(() => undefined); // Redis or the database away: the next sweep tries again
  const sweeper = setInterval(sweep, env.WEBHOOK_SWEEP_INTERVAL_MS);
  void sweep();
  relay.start();
  await runService({
    name: 'deliveries',
    host: env.HOST,
    port: env.PORT,
    metricsPort: env.METRICS_PORT,
    logger,
    handler: (_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
    },
    readiness: async () => (await mongo.ping()) && worker.isRunning(),
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    shutdownDelayMs: env.SHUTDOWN_DELAY_MS,
    onShutdown: async () => {
      clearInterval(sweeper);
      clearInterval(adopter);
      await worker.close();
      await relay.close();
      await queue.close();
      await closeRedis(budgetRedis);
      await sender.close();
      await owners.close();
      await workerWrites.close();
      await mongo.close();
    },
  });
};

start().catch((error: unknown) => {
  process.stderr.write(
    `deliveries failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
