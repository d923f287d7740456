/** The items collection: items keyed by integer id, as the item's declaration stores them (price in integer cents). */
import type { Db } from 'mongodb';
import { items, type StoredDocument } from '@platform/contracts';
import { LISTINGS } from '@platform/listing';
import { RecordRepository, listingIndexes, type IndexSpec } from '@platform/mongo';

export type ItemDocument = StoredDocument<typeof items>;

export const ITEMS_COLLECTION = items.collection;

/** Every listing filter and sort (each with the `_id` tie-breaker both ways); `ownerId`'s also serves User.items. */
export const itemIndexes: IndexSpec[] = listingIndexes(ITEMS_COLLECTION, LISTINGS.items);

export class ItemRepository extends RecordRepository<ItemDocument> {
  constructor(db: Db) {
    super(db, ITEMS_COLLECTION);
  }
}
