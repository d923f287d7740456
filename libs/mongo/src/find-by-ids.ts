/**
 * The documents with these integer ids (a DataLoader batch), in no particular order. `_id` is unique, so at most one
 * document per distinct id matches: the limit changes no result, and lets a server that scans (FerretDB v1 does for
 * integer ids) stop as soon as it has found them all instead of reading the rest of the collection.
 */
import type { Collection, Filter } from 'mongodb';

export function findByIds<TDocument extends { _id: number }>(
  collection: Collection<TDocument>,
  ids: readonly number[],
): Promise<TDocument[]> {
  const distinct = [...new Set(ids)];
  if (distinct.length === 0) return Promise.resolve([]);
  return collection
    .find({ _id: { $in: distinct } } as Filter<TDocument>)
    .limit(distinct.length)
    .toArray() as Promise<TDocument[]>;
}
