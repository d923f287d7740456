/** The items collection: items keyed by integer id, price in integer cents, owner by user id. */
import type { Collection, Db, Filter, Sort } from 'mongodb';
import {
  deleteVersioned,
  findByIds,
  nextSequenceValue,
  updateVersioned,
  type IndexSpec,
  type VersionedCollection,
} from '@platform/mongo';

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

export type ItemChanges = Partial<Pick<ItemDocument, 'name' | 'description' | 'priceCents' | 'ownerId'>>;

export const ITEMS_COLLECTION = 'items';

/** Every listing filter and sort (name, price, owner, each with the `_id` tie-breaker both ways) and User.items. */
export const itemIndexes: IndexSpec[] = ['name', 'priceCents', 'ownerId'].flatMap((field) => [
  { collection: ITEMS_COLLECTION, key: { [field]: 1, _id: 1 }, options: { name: `${field}_1__id_1` } },
  { collection: ITEMS_COLLECTION, key: { [field]: -1, _id: 1 }, options: { name: `${field}_-1__id_1` } },
]);

export interface ListPlan {
  filter: Record<string, unknown>;
  sort: Array<[string, 1 | -1]>;
  skip: number;
  limit: number;
}

export class ItemRepository {
  private readonly items: Collection<ItemDocument>;
  private readonly versioned: VersionedCollection<ItemDocument>;

  constructor(private readonly db: Db) {
    this.items = db.collection<ItemDocument>(ITEMS_COLLECTION);
    this.versioned = { db, collection: this.items };
  }

  /** Allocates the next id (unique even under concurrency: see nextSequenceValue) and inserts the document built with it. */
  async insertWithNewId(build: (id: number) => ItemDocument): Promise<ItemDocument> {
    const document = build(await nextSequenceValue(this.db, ITEMS_COLLECTION));
    await this.items.insertOne(document);
    return document;
  }

  findById(id: number): Promise<ItemDocument | null> {
    return this.items.findOne({ _id: id });
  }

  findByIds(ids: readonly number[]): Promise<ItemDocument[]> {
    return findByIds(this.items, ids);
  }

  /** One query for the items of many owners, in id order (callers group and cap per owner). */
  findByOwners(ownerIds: readonly number[]): Promise<ItemDocument[]> {
    return this.items
      .find({ ownerId: { $in: [...ownerIds] } })
      .sort({ ownerId: 1, _id: 1 })
      .toArray();
  }

  /** The plan comes from @platform/listing: operators from its allowlist, values typed; nothing from clients verbatim. */
  list(plan: ListPlan): Promise<ItemDocument[]> {
    return this.items
      .find(plan.filter as Filter<ItemDocument>)
      .sort(plan.sort as Sort)
      .skip(plan.skip)
      .limit(plan.limit)
      .toArray();
  }

  count(filter: Record<string, unknown>): Promise<number> {
    return this.items.countDocuments(filter as Filter<ItemDocument>);
  }

  /**
   * Applies the changes as the next version and returns the item after them; null when the item does not exist;
   * PRECONDITION_FAILED when `expectedVersion` is given and the item is at another version (see writeVersioned).
   */
  update(
    id: number,
    changes: ItemChanges,
    now: Date,
    expectedVersion?: number | null,
  ): Promise<ItemDocument | null> {
    return updateVersioned(this.versioned, id, { ...changes, updatedAt: now }, expectedVersion);
  }

  /** Deletes the item (at `expectedVersion` when given); false when it does not exist. */
  deleteById(id: number, expectedVersion?: number | null): Promise<boolean> {
    return deleteVersioned(this.versioned, id, expectedVersion);
  }

  async deleteByOwner(ownerId: number): Promise<number> {
    const result = await this.items.deleteMany({ ownerId });
    return result.deletedCount;
  }
}
