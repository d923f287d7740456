/** Databases of their own on the shared stack's FerretDB, for component tests that talk to it directly. */
import { MongoClient, type Db } from 'mongodb';
import { startMongoWireRecorder, type MongoWireRecorder, type RecordedCommand } from './mongo-wire-recorder';
import { unique } from './suite-apps';
import { testInfra } from './test-stack';

/**
 * For one describe block: a client connected in a beforeAll this registers; `fresh(prefix)` names a new database
 * (prefix + a unique suffix); after the block's tests every such database is dropped and the client closed. With
 * `recordWire` the client talks through the wire recorder, and `commands()` is every command it sent so far.
 */
export function suiteDatabases(options: { recordWire?: boolean } = {}): {
  fresh(prefix: string): Db;
  commands(): RecordedCommand[];
} {
  let client: MongoClient | undefined;
  let recorder: MongoWireRecorder | undefined;
  const databases: Db[] = [];
  beforeAll(async () => {
    if (options.recordWire) recorder = await startMongoWireRecorder(testInfra().mongoUrl);
    client = await MongoClient.connect(recorder?.url ?? testInfra().mongoUrl);
  });
  afterAll(async () => {
    for (const db of databases.splice(0)) await db.dropDatabase();
    await client?.close();
    await recorder?.close();
  });
  return {
    fresh(prefix: string): Db {
      if (!client) throw new Error('suiteDatabases: fresh() runs inside a test or a later beforeAll');
      const db = client.db(`${prefix}${unique()}`);
      databases.push(db);
      return db;
    },
    commands(): RecordedCommand[] {
      if (!recorder) throw new Error('suiteDatabases: commands() needs { recordWire: true }');
      return recorder.commands;
    },
  };
}
