/**
 * Use cases on items: reads (scope items:read), writes (items:write; members only their own items, admins all; an
 * item is versioned, so writes honour `expectedVersion`; only an admin chooses another owner), listings through
 * @platform/listing (all by RecordService, from the item's declaration), creation, and the internal purge of a
 * deleted user's items. Each write records its event (ADR 0023), carrying the item's REST representation.
 */
import { requireServicePrincipal, type Caller } from '@platform/auth';
import { items, parseEntityId, storedRepresentation } from '@platform/contracts';
import { RecordService } from '@platform/graphql-server';
import type { EventOutbox } from '@platform/mongo';
import type { ItemDocument, ItemRepository } from '../data-access/item-repository';

/** An item's REST representation (what GET /items/{id} answers), carried by its events. */
export const itemRepresentation = storedRepresentation(items);

export class ItemService extends RecordService<ItemDocument> {
  constructor(repository: ItemRepository, cursorSecret: Buffer, outbox?: EventOutbox) {
    super(repository, items, cursorSecret, { events: { outbox, resource: 'item', represent: itemRepresentation } });
  }

  /** A new item, owned by the caller unless an admin names another owner (or none). */
  async create(caller: Caller, rawInput: unknown): Promise<ItemDocument> {
    const principal = this.writer(caller);
    return this.insertNew(caller, this.parseCreate(principal, rawInput).changes);
  }

  /** Internal (users subgraph, on account deletion): removes every item the user owns. Idempotent. */
  async purgeOwner(caller: Caller, rawUserId: unknown): Promise<boolean> {
    requireServicePrincipal(caller.principal, caller.authError);
    await this.repository.deleteWhere({ ownerId: parseEntityId(rawUserId, 'userId') });
    return true;
  }
}
