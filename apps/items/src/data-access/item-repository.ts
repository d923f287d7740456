/** The items collection: items keyed by integer id, price in integer cents, owner by user id. */
import type { Db } from 'mongodb';
import { RecordRepository, namedIndexes, type IndexSpec, type RecordChanges } from '@platform/mongo';

export interface ItemDocument {
  _id: number;
  name: string;
  description: string | null;
  /** Integer cents: decimal prices without binary float loss. */
  priceCents: number;
  ownerId: number | null;
  createdAt: Date;
  updatedAt: Date;
  /** Write counter behind the ETag (absent on items written before it existed: 0). */
  version?: number;
}

export type ItemChanges = RecordChanges<ItemDocument>;

export const ITEMS_COLLECTION = 'items';

/** Every listing filter and sort (name, price, owner, each with the `_id` tie-breaker both ways) and User.items. */
export const itemIndexes: IndexSpec[] = ['name', 'priceCents', 'ownerId'].flatMap((field) =>
  namedIndexes(ITEMS_COLLECTION, { [field]: 1, _id: 1 }, { [field]: -1, _id: 1 }),
);

export class ItemRepository extends RecordRepository<ItemDocument> {
  constructor(db: Db) {
    super(db, ITEMS_COLLECTION);
  }
}
