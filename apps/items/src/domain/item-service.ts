/**
 * Use cases on items: reads (scope items:read), writes (items:write; members only their own items, admins all; an
 * item is versioned, so writes honour `expectedVersion`), listings through @platform/listing (all by RecordService),
 * creation, and the internal purge of a deleted user's items. The purge marks the account deleted before it sweeps,
 * and a creation checks the marks of its actor and owner after its insert (ADR 0009's order), so no item outlives an
 * account whose deletion has answered, whatever raced it.
 */
import { AppError, validationError } from '@platform/errors';
import { isAdmin, requireServicePrincipal, type Caller, type Principal } from '@platform/auth';
import {
  isEntityId,
  ItemCreate,
  ItemReplace,
  ItemUpdate,
  parseEntityId,
  parseInput,
  toCents,
  fromCents,
} from '@platform/contracts';
import { LISTINGS } from '@platform/listing';
import { RecordService } from '@platform/graphql-server';
import { deletedAccount, type DeletionMarks, type EventOutbox } from '@platform/mongo';
import type { ItemChanges, ItemDocument, ItemRepository } from '../data-access/item-repository';

/** An item's REST representation (what GET /items/{id} answers), carried by its events. */
export const itemRepresentation = (item: ItemDocument): Record<string, unknown> => ({
  id: item._id,
  name: item.name,
  description: item.description,
  price: fromCents(item.priceCents),
  owner_id: item.ownerId,
});

/** GraphQL input (camelCase, ID strings) -> the contract's REST shape, keeping only the keys the client sent. */
function toContractShape(input: unknown): Record<string, unknown> {
  if (typeof input !== 'object' || input === null) return {};
  const source = input as Record<string, unknown>;
  const shaped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'ownerId') {
      shaped['owner_id'] = value === null ? null : isEntityId(value) ? Number(value) : value;
    } else {
      shaped[key] = value;
    }
  }
  return shaped;
}

/** Only an admin chooses an item's owner; anyone else may name only themselves (403 otherwise). */
function checkOwnerChoice(principal: Principal, ownerId: number | null | undefined): void {
  if (ownerId === undefined || isAdmin(principal)) return;
  if (ownerId === null || ownerId !== principal.userId) {
    throw new AppError('FORBIDDEN', 'Not enough permissions: only an admin may set owner_id');
  }
}

/** PUT: name and price required, an omitted description becomes null, an omitted ownerId keeps the owner. */
function replaceChanges(rawInput: unknown): ItemChanges {
  const input = parseInput(ItemReplace, toContractShape(rawInput), 'input');
  const changes: ItemChanges = {
    name: input.name,
    description: input.description ?? null,
    priceCents: toCents(input.price),
  };
  if (input.owner_id !== undefined) changes.ownerId = input.owner_id;
  return changes;
}

/** PATCH: only the given fields change. */
function updateChanges(rawInput: unknown): ItemChanges {
  const input = parseInput(ItemUpdate, toContractShape(rawInput), 'input');
  const changes: ItemChanges = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  if (input.price !== undefined) changes.priceCents = toCents(input.price);
  if (input.owner_id !== undefined) changes.ownerId = input.owner_id;
  return changes;
}

export class ItemService extends RecordService<ItemDocument> {
  constructor(
    items: ItemRepository,
    cursorSecret: Buffer,
    private readonly marks: DeletionMarks,
    outbox?: EventOutbox,
  ) {
    super(items, { label: 'Item', scope: 'items', owner: 'ownerId', listing: LISTINGS.items }, cursorSecret, {
      replaceChanges,
      updateChanges,
      authorizeChanges: (principal, changes) => checkOwnerChoice(principal, changes.ownerId),
      events: { outbox, resource: 'item', represent: itemRepresentation },
    });
  }

  async create(caller: Caller, rawInput: unknown): Promise<ItemDocument> {
    const principal = this.writer(caller);
    const input = parseInput(ItemCreate, toContractShape(rawInput), 'input');
    checkOwnerChoice(principal, input.owner_id);
    const now = new Date();
    return this.repository.insertWithNewId(
      (id) => ({
        _id: id,
        name: input.name,
        description: input.description ?? null,
        priceCents: toCents(input.price),
        ownerId: input.owner_id === undefined ? principal.userId : input.owner_id,
        createdAt: now,
        updatedAt: now,
      }),
      this.writeEvent(caller, 'created'),
      // After the insert, before its event is published: the acting account (its token may outlive its deletion by a
      // request in flight) and the owner's, each checked against the deletion marks; a refused item publishes nothing.
      async (item) => {
        const actor = principal.userId === null ? undefined : deletedAccount(principal.userId);
        const owner = item.ownerId === null || item.ownerId === principal.userId ? undefined : deletedAccount(item.ownerId);
        const marked = await this.marks.undoIfMarked(
          [actor, owner].filter((record) => record !== undefined),
          () => this.repository.discard(item._id),
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
