/** The DataLoaders every record type of a subgraph batches with: by id, and by parent (a user's items, a post's comments). */
import DataLoader from 'dataloader';

/** One `$in` query per request for every record the response names by id; absent ids load as null. */
export function byIdLoader<T extends { _id: number }>(
  find: (ids: readonly number[]) => Promise<T[]>,
): DataLoader<number, T | null> {
  return new DataLoader<number, T | null>(async (ids) => {
    const byId = new Map((await find(ids)).map((doc) => [doc._id, doc]));
    return ids.map((id) => byId.get(id) ?? null);
  });
}

/** Loaders keyed by parent id, one per `first` value, each answering a batch with one query grouped in memory. */
export function groupedLoaders<T>(
  find: (parentIds: readonly number[]) => Promise<T[]>,
  parentOf: (doc: T) => number | null,
): (first: number) => DataLoader<number, T[]> {
  const loaders = new Map<number, DataLoader<number, T[]>>();
  return (first: number): DataLoader<number, T[]> => {
    let loader = loaders.get(first);
    if (!loader) {
      loader = new DataLoader<number, T[]>(async (parentIds) => {
        const grouped = new Map<number, T[]>(parentIds.map((id) => [id, []]));
        for (const doc of await find(parentIds)) {
          const parent = parentOf(doc);
          const list = parent === null ? undefined : grouped.get(parent);
          if (list && list.length < first) list.push(doc);
        }
        return parentIds.map((id) => grouped.get(id) ?? []);
      });
      loaders.set(first, loader);
    }
    return loader;
  };
}
