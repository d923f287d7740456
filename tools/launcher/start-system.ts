/**
 * `npm start`: FerretDB on PostgreSQL (data in .data/) and redis-server unless MONGO_URL / REDIS_URL are set, then the six
 * processes on their default ports (README.md); prints where each listens; Ctrl-C or SIGTERM stops everything.
 */
import { join, resolve } from 'node:path';
import { resolveJwtSecret } from '@platform/config';
import {
  APP_NAMES,
  DEFAULT_METRICS_PORTS,
  DEFAULT_PORTS,
  startFerretDb,
  startRedis,
  startSystem,
  type AppName,
  type RunningInfra,
  type RunningSystem,
} from '@platform/dev-stack';
import { passThrough } from './launcher-variables';

const log = (message: string) => process.stdout.write(`[start] ${message}\n`);

/**
 * `<APP>_PORT` (REST_PORT, GATEWAY_PORT, USERS_PORT, ...), `MONGO_PORT`, `REDIS_PORT` move a process off its default
 * port; `<APP>_METRICS_PORT` (REST_METRICS_PORT, ...) its metrics listener.
 */
const portFromEnv = (name: string, fallback: number): number => {
  const raw = process.env[`${name.toUpperCase()}_PORT`];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new Error(`${name.toUpperCase()}_PORT must be a port number`);
  return value;
};

async function main(): Promise<void> {
  const rootDir = resolve(__dirname, '..', '..');
  const dataDir = resolve(process.env['DATA_DIR'] ?? join(rootDir, '.data'));
  const infra: RunningInfra[] = [];
  let system: RunningSystem | undefined;
  let stopping = false;

  const shutdown = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    await system?.stop();
    await Promise.all(infra.map((i) => i.process.stop('SIGTERM', 5_000)));
    log('stopped');
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    let mongoUrl = process.env['MONGO_URL'];
    if (!mongoUrl) {
      const ferret = await startFerretDb({ dataDir: join(dataDir, 'ferretdb'), port: portFromEnv('mongo', 27017), durable: true, log, logFile: join(dataDir, 'ferretdb.log') });
      infra.push(ferret);
      mongoUrl = ferret.url;
      log(`FerretDB ${ferret.url} (on PostgreSQL, data in ${join(dataDir, 'ferretdb', 'postgres')})`);
    }
    let redisUrl = process.env['REDIS_URL'];
    if (!redisUrl) {
      try {
        const redis = await startRedis({ dataDir: join(dataDir, 'redis'), port: portFromEnv('redis', 6379), log });
        infra.push(redis);
        redisUrl = redis.url;
        log(`redis-server ${redis.url}`);
      } catch (error) {
        log(`no redis-server (${error instanceof Error ? error.message : String(error)}); rate limits stay in-process`);
      }
    }
    const jwtSecret = resolveJwtSecret({ NODE_ENV: process.env['NODE_ENV'] ?? 'development', JWT_SECRET: process.env['JWT_SECRET'], DATA_DIR: dataDir });
    // Every variable a process declares (README's configuration table), except what the launcher sets per process.
    const passthrough = passThrough(rootDir, process.env);
    const ports = Object.fromEntries(APP_NAMES.map((name) => [name, portFromEnv(name, DEFAULT_PORTS[name])])) as Record<AppName, number>;
    const metricsPorts = Object.fromEntries(
      APP_NAMES.map((name) => [name, portFromEnv(`${name}_metrics`, DEFAULT_METRICS_PORTS[name])]),
    ) as Record<AppName, number>;
    // Development: webhooks may deliver to this machine's loopback (a receiver on localhost); set it to false to try the refusal.
    const env = { DATA_DIR: dataDir, WEBHOOK_ALLOW_LOOPBACK: 'true', ...passthrough, MONGO_INDEXES: 'create' };
    system = await startSystem({ rootDir, mongoUrl, redisUrl, jwtSecret, ports, metricsPorts, env });
    log('all processes ready:');
    for (const name of APP_NAMES) {
      const url = `${system.urls[name]}${name === 'rest' ? '  (docs: /docs)' : name === 'gateway' ? '/graphql' : ''}`;
      log(`  ${name.padEnd(10)} ${url.padEnd(40)} metrics: ${system.metricsUrls[name]}`);
    }
    log('Ctrl-C stops everything');
  } catch (error) {
    log(`failed: ${error instanceof Error ? error.message : String(error)}`);
    await shutdown('error', 1);
  }
}

void main();
