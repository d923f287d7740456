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

/**
 * Index specs on one collection under MongoDB's default names (`postId_1_authorId_-1__id_1`), spelled out so every
 * server (FerretDB v1 included) and every deployment finds the same index under the same name.
 */
export const namedIndexes = (collection: string, ...keys: Array<Record<string, 1 | -1>>): IndexSpec[] =>
  keys.map((key) => ({
    collection,
    key,
    options: {
      name: Object.entries(key)
        .map(([field, direction]) => `${field}_${direction}`)
        .join('_'),
    },
  }));
