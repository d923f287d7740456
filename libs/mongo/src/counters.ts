/**
 * Integer ids that are handed out once, ever. The next value is proposed from the highest claim so far and made
 * ours by inserting its claim into `id_claims`, whose `_id` primary key is the one uniqueness every server enforces
 * atomically; a concurrent claimer of the same value gets a duplicate-key error and proposes again. (A counters
 * document with $inc would be the MongoDB idiom, but FerretDB v1 runs findAndModify as a read and a write and loses
 * concurrent increments.) Claims are never removed, so the ids of deleted records are never reused.
 */
import type { Db, IndexSpecification } from 'mongodb';
import { isDuplicateKeyError } from './mongo-errors';

export const ID_CLAIMS_COLLECTION = 'id_claims';
const MAX_ATTEMPTS = 200;

interface ClaimDocument {
  _id: string;
  sequence: string;
  value: number;
  claimedAt: Date;
}

/** The index the proposal reads (highest value per sequence); part of every service's index list via ensureIndexes. */
export const ID_CLAIMS_INDEX: { collection: string; key: IndexSpecification; options: { name: string } } = {
  collection: ID_CLAIMS_COLLECTION,
  key: { sequence: 1, value: -1 },
  options: { name: 'sequence_value' },
};

export async function nextSequenceValue(db: Db, sequence: string): Promise<number> {
  const claims = db.collection<ClaimDocument>(ID_CLAIMS_COLLECTION);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const highest = await claims
      .find({ sequence }, { projection: { value: 1 } })
      .sort({ value: -1 })
      .limit(1)
      .next();
    // Under contention, skip ahead a little at random so concurrent claimers stop proposing the same value.
    const value =
      (highest?.value ?? 0) + 1 + (attempt === 0 ? 0 : Math.floor(Math.random() * Math.min(attempt, 8)));
    try {
      await claims.insertOne({ _id: `${sequence}:${value}`, sequence, value, claimedAt: new Date() });
      return value;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }
  throw new Error(`sequence ${sequence}: no unclaimed value after ${MAX_ATTEMPTS} attempts`);
}

/** Marks every value up to `value` as taken (bulk loads that insert their own ids, e.g. the benchmark's seed). */
export async function reserveSequenceUpTo(db: Db, sequence: string, value: number): Promise<void> {
  await db
    .collection<ClaimDocument>(ID_CLAIMS_COLLECTION)
    .updateOne(
      { _id: `${sequence}:${value}` },
      { $setOnInsert: { sequence, value, claimedAt: new Date() } },
      { upsert: true },
    );
}
