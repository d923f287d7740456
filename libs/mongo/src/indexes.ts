/** Creates each collection's indexes at start; every filter and sort a service offers has one here. */
import type { CreateIndexesOptions, Db, IndexSpecification } from 'mongodb';
import { ID_CLAIMS_INDEX } from './counters';

export interface IndexSpec {
  collection: string;
  key: IndexSpecification;
  options?: CreateIndexesOptions;
  /**
   * Readies stored documents for this index before it is built, e.g. fills in a derived field that documents written
   * before the index existed lack (a unique index over a missing field would see them all as duplicates of null).
   * Runs at every start, so it must be idempotent and cheap once done.
   */
  prepare?: (db: Db) => Promise<void>;
}

/** The service's own indexes, plus the id-claims index every database that allocates ids reads. */
export async function ensureIndexes(db: Db, specs: readonly IndexSpec[]): Promise<void> {
  const all: readonly IndexSpec[] = [ID_CLAIMS_INDEX, ...specs];
  for (const spec of all) {
    await spec.prepare?.(db);
    await db.collection(spec.collection).createIndex(spec.key, spec.options ?? {});
  }
}
