/**
 * The use cases every owned record of a subgraph shares (items, posts, comments): read and list with the read scope;
 * replace, update and delete with the write scope, 404 before 403 (owner or admin), each write one version further
 * through RecordRepository (412 on a stale `expectedVersion`). A resource's service passes what is its own (input
 * parsing, an extra authorisation, a cascade, a parent record) and adds its own use cases (create, likes, purges).
 */
import { notFound } from '@platform/errors';
import { requireOwnerOrAdmin, requireScope, type Caller, type Principal } from '@platform/auth';
import { parseEntityId } from '@platform/contracts';
import {
  parentScope,
  planMongoList,
  toConnection,
  type Connection,
  type ConnectionArgs,
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

/** What a record type adds to the shared use cases: its input parsing, and where it needs them, its own rules. */
export interface RecordServiceOptions<T extends VersionedRecord> {
  /** PATCH: the validated changes of a raw input (only the fields it names). */
  updateChanges: (rawInput: unknown) => RecordChanges<T>;
  /** PUT: the validated changes of a full replacement; absent when the resource has none. */
  replaceChanges?: (rawInput: unknown) => RecordChanges<T>;
  /** After 404 and 403: may this caller make these changes (e.g. only an admin chooses an item's owner)? */
  authorizeChanges?: (principal: Principal, changes: RecordChanges<T>) => void;
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

/** What identifies a record type to its service: its name in 404s, its scopes' resource, who owns it, its listing. */
export interface RecordKind<T> {
  label: string;
  /** `items`: reads need `items:read`, writes `items:write`. */
  scope: 'items' | 'posts';
  /** The field naming who may write the record besides an admin: its owner or author. */
  owner: keyof T & string;
  listing: ListingSpec;
}

export class RecordService<T extends VersionedRecord> {
  constructor(
    protected readonly repository: RecordRepository<T>,
    protected readonly kind: RecordKind<T>,
    private readonly cursorSecret: Buffer,
    protected readonly options: RecordServiceOptions<T>,
  ) {}

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
    return this.write(this.options.replaceChanges ?? this.options.updateChanges, ...args);
  }

  /** PATCH: only the given fields change. */
  update(...args: RecordWriteArgs): Promise<T> {
    return this.write(this.options.updateChanges, ...args);
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
    const current = await this.requireWritable(principal, id, rawParentId);
    const cascade = this.options.cascade;
    const deleted = await this.repository.deleteById(id, expectedVersion, cascade && (() => cascade(id)), {
      current,
      event: this.writeEvent(caller, 'deleted'),
    });
    if (!deleted) throw notFound(this.kind.label, id);
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
            scope: `${this.kind.scope}:read`,
            ownerId: (record[this.kind.owner] as number | null) ?? null,
            private: false,
          },
        ),
    };
  }

  /** The caller's principal when it holds the read scope. */
  protected reader(caller: Caller): Principal {
    return requireScope(caller.principal, `${this.kind.scope}:read`, caller.authError);
  }

  /** The caller's principal when it holds the write scope. */
  protected writer(caller: Caller): Principal {
    return requireScope(caller.principal, `${this.kind.scope}:write`, caller.authError);
  }

  /** 404 (also under another parent than the one named) before 403: absent is absent to everyone. */
  protected async requireWritable(principal: Principal, id: number, rawParentId?: unknown): Promise<T> {
    const parentId = this.parentIdOf(rawParentId);
    const record = await this.repository.findById(id);
    if (!record || !this.isUnder(record, parentId)) throw notFound(this.kind.label, id);
    requireOwnerOrAdmin(principal, record[this.kind.owner] as number | null);
    return record;
  }

  private async write(
    changesOf: (rawInput: unknown) => RecordChanges<T>,
    ...[caller, rawId, rawInput, expectedVersion, rawParentId]: RecordWriteArgs
  ): Promise<T> {
    const principal = this.writer(caller);
    const id = parseEntityId(rawId, 'id');
    const changes = changesOf(rawInput);
    // The one read of the record: authorisation here, and its version for the claim (no second read there).
    const current = await this.requireWritable(principal, id, rawParentId);
    this.options.authorizeChanges?.(principal, changes);
    const updated = await this.repository.update(id, changes, new Date(), expectedVersion, {
      current,
      event: this.writeEvent(caller, 'updated'),
    });
    if (!updated) throw notFound(this.kind.label, id);
    return updated;
  }

  private page(
    caller: Caller,
    args: ConnectionArgs,
    within?: Filter<T>,
    scope?: string,
  ): Promise<Connection<T>> {
    const { repository, cursorSecret } = this;
    const listing = this.kind.listing;
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
