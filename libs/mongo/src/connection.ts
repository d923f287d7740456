/** Opens the process's MongoClient (pooled, retryable writes where the server has them) and its database. */
import { MongoClient, type Db } from 'mongodb';

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
}

export async function connectMongo(
  url: string,
  dbName: string,
  appName: string,
  options: ConnectOptions = {},
): Promise<MongoHandle> {
  const client = new MongoClient(url, {
    appName,
    monitorCommands: options.monitorCommands ?? false,
    maxPoolSize: 50,
    minPoolSize: 2,
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    socketTimeoutMS: 30_000,
  });
  options.beforeConnect?.(client);
  await client.connect();
  const db = client.db(dbName);
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
