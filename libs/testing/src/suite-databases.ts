/** Databases of their own on the shared stack's FerretDB, for component tests that talk to it directly. */
import { MongoClient, type Db } from 'mongodb';
import { unique } from './suite-apps';
import { testStack } from './test-stack';

/**
 * For one describe block: a client connected in a beforeAll this registers; `fresh(prefix)` names a new database
 * (prefix + a unique suffix); after the block's tests every such database is dropped and the client closed.
 */
export function suiteDatabases(): { fresh(prefix: string): Db } {
  let client: MongoClient | undefined;
  const databases: Db[] = [];
  beforeAll(async () => {
    client = await MongoClient.connect(testStack().mongoUrl);
  });
  afterAll(async () => {
    for (const db of databases.splice(0)) await db.dropDatabase();
    await client?.close();
  });
  return {
    fresh(prefix: string): Db {
      if (!client) throw new Error('suiteDatabases: fresh() runs inside a test or a later beforeAll');
      const db = client.db(`${prefix}${unique()}`);
      databases.push(db);
      return db;
    },
  };
}
