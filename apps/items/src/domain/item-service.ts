/**
 * Use cases on items: reads (scope items:read), writes (items:write; members only their own items, admins all; an
 * item is versioned, so writes honour `expectedVersion`; only an admin chooses another owner), listings through
 * @platform/listing (all by RecordService, from the item's declaration), creation, and the internal purge of a
 * deleted user's items. Each write records its event (ADR 0023), carrying the item's REST representation. The purge
 * marks the account deleted before it sweeps, and a creation checks the marks of its actor and owner after its insert
 * (ADR 0009's order), so no item outlives an account whose deletion has answered, whatever raced it.
 */
import { AppError, validationError } from '@platform/errors';
import { requireServicePrincipal, type Caller } from '@platform/auth';
import { items, parseEntityId, storedRepresentation } from '@platform/contracts';
import { RecordService } from '@platform/graphql-server';
import type { CursorSecret } from '@platform/listing';
import { deletedAccount, type DeletionMarks, type EventOutbox } from '@platform/mongo';
import type { ItemDocument, ItemRepository } from '../data-access/item-repository';

/** An item's REST representation (what GET /items/{id} answers), carried by its events. */
export const itemRepresentation = storedRepresentation(items);

export class ItemService extends RecordService<ItemDocument> {
  constructor(
    repository: ItemRepository,
    cursorSecret: CursorSecret,
    private readonly marks: DeletionMarks,
    outbox?: EventOutbox,
  ) {
    super(repository, items, cursorSecret, { events: { outbox, resource: 'item', represent: itemRepresentation } });
  }

  /** A new item, owned by the caller unless an admin names another owner (or none). */
  async create(caller: Caller, rawInput: unknown): Promise<ItemDocument> {
    const principal = this.writer(caller);
    const repository = this.repository as ItemRepository;
    return this.insertNew(
      caller,
      this.parseCreate(principal, rawInput).changes,
      // After the insert, before its event is published: the acting account (its token may outlive its deletion by a
      // request in flight) and the owner's, each checked against the deletion marks; a refused item publishes nothing.
      async (item) => {
        const actor = principal.userId === null ? undefined : deletedAccount(principal.userId);
        const owner =
          item.ownerId === null || item.ownerId === principal.userId ? undefined : deletedAccount(item.ownerId);
        const marked = await this.marks.undoIfMarked(
          [actor, owner].filter((record) => record !== undefined),
          () => repository.discard(item._id),
        );
        if (actor && marked.includes(actor)) throw new AppError('UNAUTHENTICATED', 'Invalid token');
        if (marked.length > 0) throw validationError([{ field: 'owner_id', message: 'names a deleted user' }]);
      },
    );
  }

  /**
   * Internal (users subgraph, on account deletion): marks the account deleted, then removes every item it owns, so a
   * creation racing the purge either is swept or undoes itself. Idempotent.
   */
  async purgeOwner(caller: Caller, rawUserId: unknown): Promise<boolean> {
    requireServicePrincipal(caller.principal, caller.authError);
    const userId = parseEntityId(rawUserId, 'userId');
    await this.marks.mark(deletedAccount(userId));
    await this.repository.deleteWhere({ ownerId: userId });
    return true;
  }
}
