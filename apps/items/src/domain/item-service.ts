/**
 * Use cases on items: reads (scope items:read), writes (items:write; members only their own items, admins all),
 * listings through @platform/listing, and the internal purge of a deleted user's items.
 */
import { AppError, notFound } from '@platform/errors';
import {
  isAdmin,
  requireOwnerOrAdmin,
  requireScope,
  requireServicePrincipal,
  type Caller,
  type Principal,
} from '@platform/auth';
import {
  isEntityId,
  ItemCreate,
  ItemReplace,
  ItemUpdate,
  parseEntityId,
  parseInput,
  toCents,
} from '@platform/contracts';
import { LISTINGS, planMongoList, toConnection, type ConnectionArgs } from '@platform/listing';
import type { ItemChanges, ItemDocument, ItemRepository } from '../data-access/item-repository';

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

export class ItemService {
  constructor(
    private readonly items: ItemRepository,
    private readonly cursorSecret: Buffer,
  ) {}

  async get(caller: Caller, rawId: unknown): Promise<ItemDocument | null> {
    requireScope(caller.principal, 'items:read', caller.authError);
    return this.items.findById(parseEntityId(rawId, 'id'));
  }

  async list(caller: Caller, args: ConnectionArgs) {
    requireScope(caller.principal, 'items:read', caller.authError);
    const plan = planMongoList(LISTINGS.items, args, this.cursorSecret, { facadeCall: caller.facadeCall });
    const docs = await this.items.list(plan);
    return toConnection(docs, plan, LISTINGS.items, args, this.cursorSecret, (filter) =>
      this.items.count(filter),
    );
  }

  async create(caller: Caller, rawInput: unknown): Promise<ItemDocument> {
    const principal = requireScope(caller.principal, 'items:write', caller.authError);
    const input = parseInput(ItemCreate, toContractShape(rawInput), 'input');
    checkOwnerChoice(principal, input.owner_id);
    const now = new Date();
    return this.items.insertWithNewId((id) => ({
      _id: id,
      name: input.name,
      description: input.description ?? null,
      priceCents: toCents(input.price),
      ownerId: input.owner_id === undefined ? principal.userId : input.owner_id,
      createdAt: now,
      updatedAt: now,
    }));
  }

  /** PUT: name and price required, an omitted description becomes null, an omitted ownerId keeps the owner. */
  async replace(
    caller: Caller,
    rawId: unknown,
    rawInput: unknown,
    expectedVersion?: number | null,
  ): Promise<ItemDocument> {
    const principal = requireScope(caller.principal, 'items:write', caller.authError);
    const id = parseEntityId(rawId, 'id');
    const input = parseInput(ItemReplace, toContractShape(rawInput), 'input');
    await this.requireWritable(principal, id);
    checkOwnerChoice(principal, input.owner_id);
    const changes: ItemChanges = {
      name: input.name,
      description: input.description ?? null,
      priceCents: toCents(input.price),
    };
    if (input.owner_id !== undefined) changes.ownerId = input.owner_id;
    return this.apply(id, changes, expectedVersion);
  }

  /** PATCH: only the given fields change. */
  async update(
    caller: Caller,
    rawId: unknown,
    rawInput: unknown,
    expectedVersion?: number | null,
  ): Promise<ItemDocument> {
    const principal = requireScope(caller.principal, 'items:write', caller.authError);
    const id = parseEntityId(rawId, 'id');
    const input = parseInput(ItemUpdate, toContractShape(rawInput), 'input');
    await this.requireWritable(principal, id);
    checkOwnerChoice(principal, input.owner_id);
    const changes: ItemChanges = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.description !== undefined) changes.description = input.description;
    if (input.price !== undefined) changes.priceCents = toCents(input.price);
    if (input.owner_id !== undefined) changes.ownerId = input.owner_id;
    return this.apply(id, changes, expectedVersion);
  }

  async delete(caller: Caller, rawId: unknown, expectedVersion?: number | null): Promise<boolean> {
    const principal = requireScope(caller.principal, 'items:write', caller.authError);
    const id = parseEntityId(rawId, 'id');
    await this.requireWritable(principal, id);
    if (!(await this.items.deleteById(id, expectedVersion))) throw notFound('Item', id);
    return true;
  }

  /** Internal (users subgraph, on account deletion): removes every item the user owns. Idempotent. */
  async purgeOwner(caller: Caller, rawUserId: unknown): Promise<boolean> {
    requireServicePrincipal(caller.principal, caller.authError);
    await this.items.deleteByOwner(parseEntityId(rawUserId, 'userId'));
    return true;
  }

  /** 404 before 403: an absent item is reported as absent to everyone, then ownership is checked. */
  private async requireWritable(principal: Principal, id: number): Promise<ItemDocument> {
    const item = await this.items.findById(id);
    if (!item) throw notFound('Item', id);
    requireOwnerOrAdmin(principal, item.ownerId);
    return item;
  }

  private async apply(
    id: number,
    changes: ItemChanges,
    expectedVersion?: number | null,
  ): Promise<ItemDocument> {
    const updated = await this.items.update(id, changes, new Date(), expectedVersion);
    if (!updated) throw notFound('Item', id);
    return updated;
  }
}
