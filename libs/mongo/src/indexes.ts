/** Creates each collection's indexes at start; every filter and sort a service offers has one here. */
import { MongoServerError, type CreateIndexesOptions, type Db, type IndexSpecification } from 'mongodb';
import type { ListingSpec } from '@platform/listing';
import { ID_CLAIMS_INDEX } from './counters';
import { VERSION_CLAIMS_TTL_INDEX } from './version-claims';
import { EVENT_OUTBOX_INDEXES } from './event-outbox';

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

/**
 * The service's own indexes, plus the id-claims index every database that allocates ids reads, the TTL index that
 * expires kept version claims (ADR 0020) and the event outbox's sweep indexes (ADR 0023).
 */
const withClaims = (specs: readonly IndexSpec[]): readonly IndexSpec[] => [
  ID_CLAIMS_INDEX,
  VERSION_CLAIMS_TTL_INDEX,
  ...EVENT_OUTBOX_INDEXES,
  ...specs,
];

/** A TTL index: optional, since a server without them (FerretDB v1.24) has the claims swept instead. */
const isTtl = (spec: IndexSpec): boolean => spec.options?.expireAfterSeconds !== undefined;
/** The code of an option the server does not implement (FerretDB v1.24 for `expireAfterSeconds`). */
const NOT_IMPLEMENTED = 238;

export async function ensureIndexes(db: Db, specs: readonly IndexSpec[]): Promise<void> {
  for (const spec of withClaims(specs)) {
    await spec.prepare?.(db);
    try {
      await db.collection(spec.collection).createIndex(spec.key, spec.options ?? {});
    } catch (error) {
      if (!(isTtl(spec) && error instanceof MongoServerError && error.code === NOT_IMPLEMENTED)) throw error;
    }
  }
}

/** The name a server gives an index: its own option, else MongoDB's default (`field_1_other_-1`). */
export const indexName = (spec: IndexSpec): string =>
  spec.options?.name ??
  Object.entries(spec.key as Record<string, unknown>)
    .map(([field, direction]) => `${field}_${String(direction)}`)
    .join('_');

/**
 * `collection.name` of every index ensureIndexes would create that the database does not have (MONGO_INDEXES=verify:
 * a Job built them before the rollout; docs/mongodb.md). A collection that does not exist yet has none.
 */
export async function missingIndexes(db: Db, specs: readonly IndexSpec[]): Promise<string[]> {
  const byCollection = new Map<string, Set<string>>();
  const missing: string[] = [];
  for (const spec of withClaims(specs).filter((spec) => !isTtl(spec))) {
    let present = byCollection.get(spec.collection);
    if (!present) {
      const listed = await db
        .collection(spec.collection)
        .listIndexes()
        .toArray()
        .catch((error: unknown) => {
          // NamespaceNotFound (26): no collection, so no index yet.
          if ((error as { code?: number }).code === 26) return [];
          throw error;
        });
      present = new Set(listed.map((index) => String(index['name'])));
      byCollection.set(spec.collection, present);
    }
    if (!present.has(indexName(spec))) missing.push(`${spec.collection}.${indexName(spec)}`);
  }
  return missing;
}

/**
 * Index specs on one collection under MongoDB's default names (`postId_1_authorId_-1__id_1`), spelled out so every
 * server (FerretDB v1 included) and every deployment finds the same index under the same name.
 */
export const namedIndexes = (collection: string, ...keys: Array<Record<string, 1 | -1>>): IndexSpec[] =>
  keys.map((key) => ({ collection, key, options: { name: indexName({ collection, key }) } }));

/**
 * The indexes a listing needs: per listed field `{ field: 1, _id: 1 }` (its filters and the ascending sort with the
 * `_id` tie-breaker) and `{ field: -1, _id: 1 }` (the descending sort), each behind the parent's field for records
 * listed under a parent (`{ postId: 1, authorId: 1, _id: 1 }`), which also gets `{ parent: 1, _id: 1 }` (by id).
 * `_id` is indexed already. A relation's inverse list (`User.items` by `ownerId`) is served by its field's index.
 */
export function listingIndexes(collection: string, spec: ListingSpec, parent?: string): IndexSpec[] {
  const under = parent ? { [parent]: 1 as const } : {};
  return [
    ...(parent ? namedIndexes(collection, { [parent]: 1, _id: 1 }) : []),
    ...spec.fields
      .filter((field) => field.path !== '_id')
      .flatMap((field) => namedIndexes(collection, { ...under, [field.path]: 1, _id: 1 }, { ...under, [field.path]: -1, _id: 1 })),
  ];
}
