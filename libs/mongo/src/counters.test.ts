/** Against the real FerretDB: concurrent allocations never hand out the same id twice, and ids are never reused. */
import { MongoClient } from 'mongodb';
import { testStack } from '@platform/testing';
import { ensureIndexes } from './indexes';
import { nextSequenceValue, ID_CLAIMS_COLLECTION } from './counters';

describe('nextSequenceValue on a real server', () => {
  let client: MongoClient;
  beforeAll(async () => {
    client = await MongoClient.connect(testStack().mongoUrl);
  });
  afterAll(() => client.close());

  it('when 40 allocations race, then all 40 values are distinct and each is claimed once', async () => {
    const db = client.db(`seq_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`);
    await ensureIndexes(db, []);
    const values = await Promise.all(Array.from({ length: 40 }, () => nextSequenceValue(db, 'things')));
    expect(new Set(values).size).toBe(40);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(1);
    expect(await db.collection(ID_CLAIMS_COLLECTION).countDocuments({ sequence: 'things' })).toBe(40);
    const next = await nextSequenceValue(db, 'things');
    expect(next).toBeGreaterThan(Math.max(...values));
  });
});
