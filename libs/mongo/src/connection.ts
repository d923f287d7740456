/**
 * Opens the process's MongoClient and its database with the concerns every operation relies on
 * (docs/decisions/0026-mongodb-in-production.md): majority, journaled writes, majority reads from the primary,
 * retryable writes and reads. A connection string may set any of them; in production (`production: true`) one that
 * would weaken a guarantee is refused at start, and so is a server that is neither a replica-set member nor a mongos
 * (unless `allowStandalone`), so a deployment cannot run on settings that lose acknowledged writes at a failover.
 */
import {
  MongoClient,
  type Db,
  type MongoClientOptions,
  type ReadConcern,
  type ReadPreference,
  type WriteConcern,
} from 'mongodb';

export interface MongoHandle {
  client: MongoClient;
  db: Db;
  /** True when the server answers a ping within the readiness timeout. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** Emit command monitoring events (commandStarted, ...) for diagnostics; off unless asked for. */
  monitorCommands?: boolean;
  /** Runs before the client connects, so listeners (metrics) see the pool's first connections too. */
  beforeConnect?: (client: MongoClient) => void;
  /** Refuse settings and servers that weaken the guarantees (NODE_ENV=production). */
  production?: boolean;
  /** With `production`: accept a standalone server (a single FerretDB in tests and the benchmark). */
  allowStandalone?: boolean;
}

/** Raised at start for a configuration production must not run on; its message names the setting, never the URL. */
export class UnsafeMongoConfiguration extends Error {
  constructor(problems: string[]) {
    super(`unsafe MongoDB configuration for production: ${problems.join('; ')}`);
    this.name = 'UnsafeMongoConfiguration';
  }
}

/** The concerns of every operation unless the connection string says otherwise (ADR 0026 has the per-operation table). */
const DEFAULT_CONCERNS = {
  writeConcern: { w: 'majority', journal: true },
  readConcern: { level: 'majority' },
  readPreference: 'primary',
  retryWrites: true,
  retryReads: true,
} as const satisfies MongoClientOptions;

/** What the connection string itself sets, parsed by the driver (no connection is opened). */
function urlConcerns(url: string): {
  writeConcern?: WriteConcern;
  readConcern?: ReadConcern;
  readPreference: ReadPreference;
  retryWrites: boolean;
} {
  const { writeConcern, readConcern, readPreference, retryWrites } = new MongoClient(url).options;
  return { writeConcern, readConcern, readPreference, retryWrites };
}

/** The problems a connection string's own settings would cause in production (empty: none). */
export function unsafeSettings(url: string): string[] {
  const { writeConcern, readConcern, readPreference, retryWrites } = urlConcerns(url);
  const problems: string[] = [];
  if (writeConcern?.w !== undefined && typeof writeConcern.w === 'number' && writeConcern.w < 2) {
    problems.push(
      `w=${writeConcern.w} (an acknowledged write can be rolled back at a failover; use w=majority)`,
    );
  }
  if (writeConcern?.journal === false)
    problems.push('journal=false (an acknowledged write can be lost in a crash)');
  if (!retryWrites)
    problems.push('retryWrites=false (a write interrupted by a failover would be answered as failed)');
  if (readPreference.mode !== 'primary') {
    problems.push(
      `readPreference=${readPreference.mode} (a read after a write could miss it; reads go to the primary)`,
    );
  }
  if (readConcern?.level === 'available')
    problems.push('readConcernLevel=available (may return orphaned documents)');
  return problems;
}

/** The client options: the defaults above wherever the connection string does not set the concern itself. */
function clientConcerns(url: string): MongoClientOptions {
  const fromUrl = urlConcerns(url);
  return {
    ...(fromUrl.writeConcern ? {} : { writeConcern: DEFAULT_CONCERNS.writeConcern }),
    ...(fromUrl.readConcern ? {} : { readConcern: DEFAULT_CONCERNS.readConcern }),
    retryReads: DEFAULT_CONCERNS.retryReads,
  };
}

/** A replica-set member or a mongos: what production needs for majority writes and failover. */
async function checkTopology(db: Db): Promise<string[]> {
  const hello = await db.admin().command({ hello: 1 });
  const replicaSet = typeof hello['setName'] === 'string';
  const mongos = hello['msg'] === 'isdbgrid';
  return replicaSet || mongos
    ? []
    : ['the server is a standalone (no replica set: no failover, and majority writes mean nothing)'];
}

export async function connectMongo(
  url: string,
  dbName: string,
  appName: string,
  options: ConnectOptions = {},
): Promise<MongoHandle> {
  if (options.production) {
    const problems = unsafeSettings(url);
    if (problems.length > 0) throw new UnsafeMongoConfiguration(problems);
  }
  const client = new MongoClient(url, {
    appName,
    monitorCommands: options.monitorCommands ?? false,
    // 50 connections unless the connection string says (the embedded FerretDB's does: its pool bounds its clients').
    maxPoolSize: /[?&]maxPoolSize=/i.test(url) ? new MongoClient(url).options.maxPoolSize : 50,
    minPoolSize: 2,
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    socketTimeoutMS: 30_000,
    ...clientConcerns(url),
  });
  options.beforeConnect?.(client);
  await client.connect();
  const db = client.db(dbName);
  if (options.production && !options.allowStandalone) {
    const problems = await checkTopology(db);
    if (problems.length > 0) {
      await client.close();
      throw new UnsafeMongoConfiguration(problems);
    }
  }
  return {
    client,
    db,
    async ping() {
      try {
        await db.command({ ping: 1 }, { timeoutMS: 1_000 });
        return true;
      } catch {
        return false;
      }
    },
    close: () => client.close(),
  };
}
