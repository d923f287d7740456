/**
 * The embedded database's pools: a burst of updates of one document larger than any driver pool and than FerretDB's
 * default PostgreSQL pool (50: each update holds one connection for its read while it waits for one to write) is
 * answered in full, burst after burst, on the run's FerretDB.
 */
import { MongoClient } from 'mongodb';
import { EMBEDDED_DRIVER_POOL } from '@platform/dev-stack';
import { testInfra } from './test-stack';
import { unique } from './suite-apps';

const BURST = 120;

describe('the embedded database under a burst on one document', () => {
  let client: MongoClient;
  beforeAll(async () => {
    // A client holding a connection per update (the burst reaches FerretDB at once), failing a hung one in 20 s.
    client = new MongoClient(testInfra().mongoUrl, {
      maxPoolSize: BURST,
      minPoolSize: BURST,
      socketTimeoutMS: 20_000,
      waitQueueTimeoutMS: 20_000,
    });
    let ready = 0;
    client.on('connectionReady', () => (ready += 1));
    await client.connect();
    const deadline = Date.now() + 30_000;
    while (ready < BURST && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(ready).toBeGreaterThanOrEqual(BURST);
  }, 60_000);
  afterAll(() => client?.close());

  it('when more concurrent updates of one document arrive than any pool holds, then every one is answered', async () => {
    expect(BURST).toBeGreaterThan(Math.max(50, EMBEDDED_DRIVER_POOL));
    const db = client.db(`burst${unique()}`);
    const docs = db.collection<{ _id: number; n: number; by?: number }>('docs');
    await docs.insertOne({ _id: 1, n: 0 });
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.allSettled(
        Array.from({ length: BURST }, (_, i) =>
          i % 2 === 0
            ? docs.updateOne({ _id: 1 }, { $inc: { n: 1 }, $set: { by: i } })
            : docs.findOneAndUpdate({ _id: 1 }, { $set: { by: i } }, { returnDocument: 'after' }),
        ),
      );
      const failed = answers.filter((a) => a.status === 'rejected').map((a) => String((a as PromiseRejectedResult).reason));
      expect({ round, failed }).toEqual({ round, failed: [] });
    }
    // FerretDB v1 loses concurrent $inc (a read, then a whole-document write): only that some landed is certain.
    expect((await docs.findOne({ _id: 1 }))?.n).toBeGreaterThan(0);
    await db.dropDatabase();
  }, 120_000);
});
