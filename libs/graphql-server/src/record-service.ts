/**
 * The use cases every owned record of a subgraph shares (items, posts, comments), from the record's declaration: read
 * and list with its read scope; replace, update and delete with its write scope, 404 before 403 (owner or admin, and
 * fields only an admin sets), the input validated and turned into stored changes as the declaration says, each write
 * one version further through RecordRepository (412 on a stale `expectedVersion`) with its event (ADR 0023). A
 * resource's service passes what is its own (a cascade, a parent record, its events) and adds its own use cases
 * (create, likes, purges).
 */
import { notFound } from '@platform/errors';
import { requireOwnerOrAdmin, requireScope, type Caller, type Principal } from '@platform/auth';
import { parseEntityId, type Resource, type WriteOperation } from '@platform/contracts';
import {
  listingSpec,
  parentScope,
  planMongoList,
  toConnection,
  type Connection,
  type ConnectionArgs,
  type CursorSecret,
  type ListingSpec,
} from '@platform/listing';
import type { Filter } from 'mongodb';
import { buildEvent, type EventCaller, type EventType } from '@platform/events';
import type {
  EventOutbox,
  RecordChanges,
  RecordRepository,
  VersionedRecord,
  WriteEvent,
} from '@platform/mongo';
import { checkAdminOnly, parseWrite, type ParsedWrite } from './resource-writes';

/** A record that lives under another one (a comment under its post): reads, writes and listings may name the parent. */
export interface RecordParent<T> {
  /** The document field holding the parent's id, e.g. `postId`. */
  field: keyof T & string;
  /** The parent's name in 404s (`Post`) and in cursor scopes (`post`). */
  label: string;
  kind: 'post';
  /** The GraphQL argument naming the parent (for validation errors), e.g. `postId`. */
  argument: string;
  exists: (id: number) => Promise<boolean>;
}

/** What a record type adds to the shared use cases where it needs them: its own rules. */
export interface RecordServiceOptions<T extends VersionedRecord> {
  /** What goes with the record, run under its version claim before it is deleted (a post's comments and likes). */
  cascade?: (id: number) => Promise<void>;
  parent?: RecordParent<T>;
  /** The events its writes record (ADR 0023); absent or without an outbox: none. */
  events?: RecordEvents<T> | undefined;
}

/** How a record type's writes become events: `<resource>.created|updated|deleted` with its REST representation. */
export interface RecordEvents<T> {
  outbox: EventOutbox | undefined;
  resource: 'item' | 'post' | 'comment';
  /** The REST representation (the current API version's) of a stored record. */
  represent: (record: T) => Record<string, unknown>;
}

/** A PUT or PATCH: who, which record, the raw input, the version If-Match named (null: none), the parent named. */
export type RecordWriteArgs = [
  caller: Caller,
  rawId: unknown,
  rawInput: unknown,
  expectedVersion?: number | null,
  rawParentId?: unknown,
];

export class RecordService<T extends VersionedRecord> {
  private readonly listing: ListingSpec;
  private readonly scopes: NonNullable<Resource['scopes']>;
  /** The stored field naming who may write the record besides an admin: its owner or author. */
  private readonly owner: string;

  constructor(
    protected readonly repository: RecordRepository<T>,
    protected readonly resource: Resource & { name: ListingSpec['resource'] },
    private readonly cursorSecret: CursorSecret,
    protected readonly options: RecordServiceOptions<T> = {},
  ) {
    if (!resource.scopes) throw new Error(`${resource.type} declares no scopes`);
    this.scopes = resource.scopes;
    this.owner = resource.field(resource.owner).stored as string;
    this.listing = listingSpec(resource);
  }

  /** One record; null when absent, or (with a parent id) when it is under another parent. */
  async get(caller: Caller, rawId: unknown, rawParentId?: unknown): Promise<T | null> {
    this.reader(caller);
    const id = parseEntityId(rawId, 'id');
    const parentId = this.parentIdOf(rawParentId);
    const record = await this.repository.findById(id);
    return record && this.isUnder(record, parentId) ? record : null;
  }

  /** A page of the listing; for a record with a parent, of one parent's records (404 when the parent is absent). */
  async list(caller: Caller, args: ConnectionArgs, rawParentId?: unknown): Promise<Connection<T>> {
    this.reader(caller);
    const parent = this.options.parent;
    if (!parent) return this.page(caller, args);
    const parentId = parseEntityId(rawParentId, parent.argument);
    // A parent's records are their own listing: a cursor of another parent's records is refused.
    const within = { [parent.field]: parentId } as Filter<T>;
    const [exists, connection] = await Promise.all([
      parent.exists(parentId),
      this.page(caller, args, within, parentScope(parent.kind, parentId)),
    ]);
    if (!exists) throw notFound(parent.label, parentId);
    return connection;
  }

  /** PUT: every field (absent ones take their defaults). */
  replace(...args: RecordWriteArgs): Promise<T> {
    return this.write('replace', ...args);
  }

  /** PATCH: only the given fields change. */
  update(...args: RecordWriteArgs): Promise<T> {
    return this.write('update', ...args);
  }

  async delete(
    caller: Caller,
    rawId: unknown,
    expectedVersion?: number | null,
    rawParentId?: unknown,
  ): Promise<boolean> {
    const principal = this.writer(caller);
    const id = parseEntityId(rawId, 'id');
    // The one read of the record: authorisation here, and its version for the claim (no second read there).
    const currentReadAt = Date.now();
    const current = await this.requireWritable(principal, id, rawParentId);
    const cascade = this.options.cascade;
    const deleted = await this.repository.deleteById(id, expectedVersion, cascade && (() => cascade(id)), {
      current,
      currentReadAt,
      event: this.writeEvent(caller, 'deleted'),
    });
    if (!deleted) throw notFound(this.resource.label, id);
    return true;
  }

  /** The event a write of this record type records, by the caller (undefined: events are off). */
  protected writeEvent(caller: Caller, change: 'created' | 'updated' | 'deleted'): WriteEvent<T> | undefined {
    const events = this.options.events;
    if (!events?.outbox) return undefined;
    const { resource, represent } = events;
    return {
      outbox: events.outbox,
      of: (record) =>
        buildEvent(
          caller as EventCaller,
          `${resource}.${change}` as EventType,
          { type: resource, id: record._id },
          represent(record),
          {
            scope: this.scopes.read,
            ownerId: ((record as unknown as Record<string, unknown>)[this.owner] as number | null) ?? null,
            private: false,
          },
        ),
    };
  }

  /** The caller's principal when it holds the read scope. */
  protected reader(caller: Caller): Principal {
    return requireScope(caller.principal, this.scopes.read, caller.authError);
  }

  /** The caller's principal when it holds the write scope. */
  protected writer(caller: Caller): Principal {
    return requireScope(caller.principal, this.scopes.write, caller.authError);
  }

  /** A create's validated input and the stored fields it sets (an owner it omits: the caller), fields only an admin sets checked. */
  protected parseCreate(principal: Principal, rawInput: unknown): ParsedWrite {
    const parsed = parseWrite(this.resource, 'create', rawInput, principal);
    checkAdminOnly(this.resource, principal, parsed.input);
    return parsed;
  }

  /**
   * Inserts a new record under a new id: the given fields, created and changed now, with the `created` event;
   * `settle` runs after the insert (a deletion guard's check).
   */
  protected insertNew(caller: Caller, fields: Record<string, unknown>, settle?: (record: T) => Promise<void>): Promise<T> {
    const now = new Date();
    return this.repository.insertWithNewId(
      (id) => ({ _id: id, ...fields, createdAt: now, updatedAt: now }) as unknown as T,
      this.writeEvent(caller, 'created'),
      settle,
    );
  }

  /** 404 (also under another parent than the one named) before 403: absent is absent to everyone. */
  protected async requireWritable(principal: Principal, id: number, rawParentId?: unknown): Promise<T> {
    const parentId = this.parentIdOf(rawParentId);
    const record = await this.repository.findById(id);
    if (!record || !this.isUnder(record, parentId)) throw notFound(this.resource.label, id);
    requireOwnerOrAdmin(principal, (record as unknown as Record<string, unknown>)[this.owner] as number | null);
    return record;
  }

  private async write(
    operation: Exclude<WriteOperation, 'create'>,
    ...[caller, rawId, rawInput, expectedVersion, rawParentId]: RecordWriteArgs
  ): Promise<T> {
    const principal = this.writer(caller);
    const id = parseEntityId(rawId, 'id');
    const { input, changes } = parseWrite(this.resource, operation, rawInput);
    // The one read of the record: authorisation here, and its version for the claim (no second read there).
    const currentReadAt = Date.now();
    const current = await this.requireWritable(principal, id, rawParentId);
    checkAdminOnly(this.resource, principal, input);
    const updated = await this.repository.update(id, changes as RecordChanges<T>, new Date(), expectedVersion, {
      current,
      currentReadAt,
      event: this.writeEvent(caller, 'updated'),
    });
    if (!updated) throw notFound(this.resource.label, id);
    return updated;
  }

  private page(
    caller: Caller,
    args: ConnectionArgs,
    within?: Filter<T>,
    scope?: string,
  ): Promise<Connection<T>> {
    const { repository, cursorSecret } = this;
    const listing = this.listing;
    const plan = planMongoList(listing, args, cursorSecret, { facadeCall: caller.facadeCall, scope });
    return repository
      .list(plan, within)
      .then((docs) =>
        toConnection(
          docs,
          plan,
          listing,
          args,
          cursorSecret,
          (filter) => repository.count(filter, within),
          scope,
        ),
      );
  }

  private parentIdOf(rawParentId: unknown): number | undefined {
    const parent = this.options.parent;
    return parent && rawParentId !== undefined && rawParentId !== null
      ? parseEntityId(rawParentId, parent.argument)
      : undefined;
  }

  private isUnder(record: T, parentId: number | undefined): boolean {
    const parent = this.options.parent;
    return !parent || parentId === undefined || record[parent.field] === parentId;
  }
}
