/** Creates each collection's indexes at start; every filter and sort a service offers has one here. */
import type { CreateIndexesOptions, Db, IndexSpecification } from 'mongodb';
import { ID_CLAIMS_INDEX } from './counters';

export interface IndexSpec {
  collection: string;
  key: IndexSpecification;
  options?: CreateIndexesOptions;
}

/** The service's own indexes, plus the id-claims index every database that allocates ids reads. */
export async function ensureIndexes(db: Db, specs: readonly IndexSpec[]): Promise<void> {
  for (const spec of [ID_CLAIMS_INDEX, ...specs]) {
    await db.collection(spec.collection).createIndex(spec.key, spec.options ?? {});
  }
}
