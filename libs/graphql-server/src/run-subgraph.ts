/**
 * The life of a subgraph process, written once: parse the environment, log, connect MongoDB (refusing unsafe settings
 * in production) and create the indexes (or, MONGO_INDEXES=verify, wait unready until a Job has built them), build
 * the app, listen with health/readiness, and on shutdown stop Apollo, close clients and MongoDB. Started with
 * `--create-indexes`, it only creates the indexes and exits (the Kubernetes Job `mongo-indexes`, docs/mongodb.md).
 * A start-up failure prints one line (no stack, no configuration) and exits 1.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  crashAfterWriteOf,
  graphqlLimitsOf,
  isProduction,
  type CommonEnvironment,
  type EventsRelayEnvironment,
  type ResolvedSecrets,
} from '@platform/config';
import { createLogger, type Logger } from '@platform/logging';
import {
  claimRetention,
  connectMongo,
  ensureIndexes,
  missingIndexes,
  monitorMongo,
  type IndexSpec,
  type MongoHandle,
} from '@platform/mongo';
import { MongoCommandStats } from './mongo-command-stats';
import type { SubgraphAppDeps } from './subgraph-server';
import { requireSubgraphSecret } from '@platform/auth';
import { runService } from '@platform/service';
import { createSubgraphWrites } from '@platform/read-cache';
import { EventRelay } from '@platform/mongo';
import { eventsServiceTransport } from './event-relay';
import { ReadCacheTracking } from './read-cache-invalidation';

export interface SubgraphEnvironment extends CommonEnvironment, ResolvedSecrets {
  PORT: number;
  /** undefined: METRICS_PORT=off. */
  METRICS_PORT?: number | undefined;
  MONGO_URL: string;
  MONGO_DB: string;
  MONGO_INDEXES: 'create' | 'verify';
  MONGO_ALLOW_STANDALONE: boolean;
  /** Where the read cache's generations live (libs/read-cache); absent: nothing to invalidate. */
  REDIS_URL?: string | undefined;
}

/** A subgraph whose writes record events declares these (libs/config eventsRelayEnvironment). */
type MaybeEventsEnvironment = Partial<EventsRelayEnvironment>;

/** The relay of a subgraph that records events, when its environment turns them on (ADR 0023). */
function eventRelayOf(
  env: SubgraphEnvironment & MaybeEventsEnvironment,
  name: string,
  db: SubgraphAppDeps['db'],
  logger: Logger,
): EventRelay | undefined {
  if (!env.EVENTS || !env.EVENTS_SUBGRAPH_URL) return undefined;
  return new EventRelay({
    db,
    logger,
    transport: eventsServiceTransport({
      service: name,
      eventsUrl: env.EVENTS_SUBGRAPH_URL,
      jwtSecret: env.jwtSecret,
      subgraphSecret: env.subgraphSecret,
    }),
    sweepAfterMs: env.EVENTS_SWEEP_AFTER_MS ?? 10_000,
    crashAfterWrite: crashAfterWriteOf(env),
  });
}

export interface SubgraphApp {
  server: { stop(): Promise<void> };
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface SubgraphProcess<E extends SubgraphEnvironment, A extends SubgraphApp> {
  name: string;
  loadEnvironment: () => E;
  indexes: readonly IndexSpec[];
  /** Per-request MongoDB command counts (development and tests only): createApp then gets `commandStats`. */
  monitorCommands?: boolean;
  /**
   * `deps` is what every subgraph app takes (its database, logger, secrets, GRAPHQL_MAX_* limits, body limit, and
   * commandStats only when monitorCommands is on outside production); `env` and `mongo` for what a subgraph adds.
   */
  createApp: (process: { env: E; mongo: MongoHandle; logger: Logger; deps: SubgraphAppDeps }) => Promise<A>;
  /** Extra readiness beyond MongoDB answering (e.g. a bootstrap that must finish). */
  ready?: (app: A) => boolean;
  /** Closes what createApp opened besides the Apollo server (internal clients, timers). */
  close?: (app: A) => Promise<void>;
}

export function runSubgraph<E extends SubgraphEnvironment, A extends SubgraphApp>(
  definition: SubgraphProcess<E, A>,
): void {
  const start = async () => {
    const env = definition.loadEnvironment();
    const logger = createLogger(definition.name, env.LOG_LEVEL);
    const production = isProduction(env);
    // Never in production: command monitoring puts an AsyncLocalStorage scope and a listener on every request.
    const monitorCommands = (definition.monitorCommands ?? false) && !production;
    // Command monitoring feeds the command-duration metrics (and MongoCommandStats, in development only).
    const metrics = env.METRICS_PORT !== undefined;
    const mongo = await connectMongo(env.MONGO_URL, env.MONGO_DB, definition.name, {
      monitorCommands: metrics || monitorCommands,
      ...(metrics ? { beforeConnect: monitorMongo } : {}),
      production,
      allowStandalone: env.MONGO_ALLOW_STANDALONE,
    });
    if (process.argv.includes(CREATE_INDEXES_FLAG)) {
      await ensureIndexes(mongo.db, definition.indexes);
      logger.info({ indexes: definition.indexes.length + 2 }, `${definition.name}: indexes created`);
      await mongo.close();
      logger.flush();
      process.exit(0);
    }
    let indexes: IndexWatch = { present: () => true, stop: () => undefined };
    if (env.MONGO_INDEXES === 'create') await ensureIndexes(mongo.db, definition.indexes);
    else indexes = watchIndexes(mongo, definition.indexes, logger);
    // Version claims outlive their writes (ADR 0020): the TTL index removes them, or (none) this process sweeps.
    const retention = claimRetention(mongo.db, logger);
    const commandStats = monitorCommands ? new MongoCommandStats(mongo.client) : undefined;
    // Flushes once at start (what starting wrote, and what a crashed predecessor wrote without its bump landing).
    const writes = createSubgraphWrites({ subgraph: definition.name, redisUrl: env.REDIS_URL, logger });
    const relay = eventRelayOf(env, definition.name, mongo.db, logger);
    const tracking = writes && new ReadCacheTracking(definition.name, writes);
    const deps: SubgraphAppDeps = {
      // Every read and write of the app goes through this Db, so each is known to the generations (ADR 0019).
      db: tracking ? tracking.db(mongo.db) : mongo.db,
      logger,
      jwtSecret: env.jwtSecret,
      production,
      limits: graphqlLimitsOf(env),
      maxBodyBytes: env.MAX_BODY_BYTES,
      commandStats,
      events: relay?.outbox,
      tracking,
    };
    const app = await definition.createApp({ env, mongo, logger, deps });
    relay?.start();
    await runService({
      name: definition.name,
      host: env.HOST,
      port: env.PORT,
      metricsPort: env.METRICS_PORT,
      logger,
      // Only callers holding SUBGRAPH_SECRET (the gateway, another subgraph) get past this; health probes are served before it.
      handler: requireSubgraphSecret(app.handler, env.subgraphSecret),
      readiness: async () =>
        indexes.present() && (definition.ready ? definition.ready(app) : true) && (await mongo.ping()),
      shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
      shutdownDelayMs: env.SHUTDOWN_DELAY_MS,
      onShutdown: async () => {
        indexes.stop();
        await app.server.stop();
        await definition.close?.(app);
        await relay?.close();
        await writes?.close();
        await retention.stop();
        await mongo.close();
      },
    });
  };
  start().catch((error: unknown) => {
    process.stderr.write(
      `${definition.name} failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}

/** `node main.js --create-indexes`: create the indexes and exit (the index Job runs each subgraph image so). */
export const CREATE_INDEXES_FLAG = '--create-indexes';

const INDEX_POLL_MS = 5_000;

interface IndexWatch {
  present(): boolean;
  stop(): void;
}

/**
 * MONGO_INDEXES=verify: the process serves but stays unready (no traffic) until every index exists, checking every few
 * seconds and logging what is missing once; the rollout waits for the Job instead of racing it.
 */
function watchIndexes(mongo: MongoHandle, specs: readonly IndexSpec[], logger: Logger): IndexWatch {
  let present = false;
  let reported = '';
  let timer: NodeJS.Timeout | undefined;
  const check = async () => {
    try {
      const missing = await missingIndexes(mongo.db, specs);
      present = missing.length === 0;
      const now = missing.join(',');
      if (!present && now !== reported) {
        logger.warn(
          { missing },
          'indexes missing (MONGO_INDEXES=verify): unready until the index Job has built them',
        );
      }
      if (present && reported !== '') logger.info('indexes present: ready');
      reported = now;
    } catch (error) {
      logger.warn({ err: error }, 'index check failed');
    }
    if (!present) timer = setTimeout(() => void check(), INDEX_POLL_MS);
  };
  void check();
  return { present: () => present, stop: () => clearTimeout(timer) };
}
