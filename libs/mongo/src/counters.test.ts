/** Against the real FerretDB: concurrent allocations never hand out the same id twice, and ids are never reused. */
import { suiteDatabases } from '@platform/testing';
import { ensureIndexes } from './indexes';
import { nextSequenceValue, ID_CLAIMS_COLLECTION } from './counters';

describe('nextSequenceValue on a real server', () => {
  const databases = suiteDatabases();

  it('when 40 allocations race, then all 40 values are distinct and each is claimed once', async () => {
    const db = databases.fresh('seq_');
    await ensureIndexes(db, []);
    const values = await Promise.all(Array.from({ length: 40 }, () => nextSequenceValue(db, 'things')));
    expect(new Set(values).size).toBe(40);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(1);
    expect(await db.collection(ID_CLAIMS_COLLECTION).countDocuments({ sequence: 'things' })).toBe(40);
    const next = await nextSequenceValue(db, 'things');
    expect(next).toBeGreaterThan(Math.max(...values));
  });
});
