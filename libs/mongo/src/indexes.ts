/** Creates each collection's indexes at start; every filter and sort a service offers has one here. */
import type { CreateIndexesOptions, Db, IndexSpecification } from 'mongodb';

export interface IndexSpec {
  collection: string;
  key: IndexSpecification;
  options?: CreateIndexesOptions;
}

export async function ensureIndexes(db: Db, specs: readonly IndexSpec[]): Promise<void> {
  for (const spec of specs) {
    await db.collection(spec.collection).createIndex(spec.key, spec.options ?? {});
  }
}
