/**
 * The primitives docs/decisions/0008-exactly-once-primitives.md lets exactly-once rules rely on, proven against the
 * real FerretDB under concurrency: of many concurrent inserts of one `_id` or of one value of a unique index, and of
 * many concurrent updates setting one unique-index value, exactly one succeeds and every other is refused by the
 * unique constraint (code 11000; for updates FerretDB v1 says code 1, see below), round after round.
 */
import type { Db } from 'mongodb';
import { suiteDatabases } from '@platform/testing';
import { isDuplicateKeyError } from './mongo-errors';

const CONCURRENT = 50;
const ROUNDS = 5;

/** How many of the concurrent attempts succeeded; any failure other than the unique constraint fails the test. */
async function winners(
  attempts: Array<Promise<unknown>>,
  refusedAsDuplicate: (error: unknown) => boolean = isDuplicateKeyError,
): Promise<number> {
  const outcomes = await Promise.allSettled(attempts);
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected' && !refusedAsDuplicate(outcome.reason)) throw outcome.reason;
  }
  return outcomes.filter((o) => o.status === 'fulfilled').length;
}

describe('exactly-once primitives on a real server', () => {
  const databases = suiteDatabases();
  let db: Db;

  beforeAll(() => {
    db = databases.fresh('once_');
  });

  it(`when ${CONCURRENT} inserts of one _id race (${ROUNDS} rounds), then exactly one succeeds each round`, async () => {
    const claims = db.collection<{ _id: string; by: number }>('claims');
    for (let round = 0; round < ROUNDS; round += 1) {
      const won = await winners(
        Array.from({ length: CONCURRENT }, (_, by) => claims.insertOne({ _id: `claim-${round}`, by })),
      );
      expect({ round, won }).toEqual({ round, won: 1 });
      expect(await claims.countDocuments({ _id: `claim-${round}` })).toBe(1);
    }
  });

  it(`when ${CONCURRENT} inserts of one unique-index value race (${ROUNDS} rounds), then exactly one succeeds each round`, async () => {
    const rows = db.collection<{ key: string; by: number }>('unique_rows');
    await rows.createIndex({ key: 1 }, { unique: true, name: 'key_unique' });
    for (let round = 0; round < ROUNDS; round += 1) {
      const won = await winners(Array.from({ length: CONCURRENT }, (_, by) => rows.insertOne({ key: `k-${round}`, by })));
      expect({ round, won }).toEqual({ round, won: 1 });
      expect(await rows.countDocuments({ key: `k-${round}` })).toBe(1);
    }
  });

  it(`when ${CONCURRENT} updates of different documents to one unique-index value race (${ROUNDS} rounds), then exactly one succeeds each round`, async () => {
    const rows = db.collection<{ _id: string; email: string }>('unique_updates');
    await rows.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
    for (let round = 0; round < ROUNDS; round += 1) {
      const ids = Array.from({ length: CONCURRENT }, (_, i) => `r${round}-${i}`);
      await rows.insertMany(ids.map((_id) => ({ _id, email: `${_id}@example.com` })));
      const target = `taken-${round}@example.com`;
      const won = await winners(
        ids.map((_id) => rows.updateOne({ _id }, { $set: { email: target } })),
      );
      expect({ round, won }).toEqual({ round, won: 1 });
      expect(await rows.countDocuments({ email: target })).toBe(1);
    }
  });
});
