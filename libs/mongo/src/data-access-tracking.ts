/**
 * A `Db` that says what each call reads and writes (docs/decisions/0019-entity-generations.md): every collection method
 * is classified where it is called, from its filter, into "these documents by `_id`" or "any document of the
 * collection", and reported to hooks (the subgraph's read-cache tracking: what a query answer depends on, which
 * generations a write bumps). A subgraph's code reaches MongoDB only through the `Db` it is given, so nothing it reads
 * or writes goes unseen; a method this module does not know counts as reading and writing anything (the safe default).
 *
 * Hand-written: the driver's command monitoring sees every command too, but its events are not reliably in the async
 * context of the request that caused them (a command waiting for a pooled connection resumes in another's), and a
 * dependency attributed to the wrong request is a stale read. A Proxy around our own calls runs in our context.
 */
import type { Collection, Db, Document } from 'mongodb';

/** What the tracking reports; `ids` undefined: any document of the collection. */
export interface DataAccessHooks {
  read(collection: string, ids: readonly string[] | undefined): void;
  /** Called once the write settled (whatever its outcome); may return a promise the write's caller then waits for. */
  wrote(collection: string, ids: readonly string[] | undefined): void | Promise<void>;
  /** A call whose effect cannot be named (an unknown method, a pipeline reading other collections, a raw command). */
  opaque(effect: 'read' | 'write'): void | Promise<void>;
}

export interface DataAccessTrackingOptions {
  /**
   * Bookkeeping collections (version and id claims) whose writes never change what a query answers: not reported.
   * A read of one is opaque (no generation covers it).
   */
  bookkeeping: ReadonlySet<string>;
}

/** Beyond this many ids, a read or write counts as the whole collection's (one generation instead of hundreds). */
const MAX_IDS = 100;

const READS = new Set(['find', 'findOne', 'countDocuments', 'distinct', 'estimatedDocumentCount', 'aggregate']);
const WRITES_BY_FILTER = new Set([
  'updateOne',
  'updateMany',
  'replaceOne',
  'deleteOne',
  'deleteMany',
  'findOneAndUpdate',
  'findOneAndReplace',
  'findOneAndDelete',
]);
const INSERTS = new Set(['insertOne', 'insertMany']);
/** Stages that read or write other collections than the pipeline's own. */
const FOREIGN_STAGES = new Set(['$lookup', '$graphLookup', '$unionWith', '$facet', '$out', '$merge']);

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
};

/** A value `_id` can be compared to exactly: a number, a string, an ObjectId. */
function idText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && (value as { _bsontype?: unknown })._bsontype === 'ObjectId')
    return String(value);
  return undefined;
}

function idsOfCondition(condition: unknown): string[] | undefined {
  const single = idText(condition);
  if (single !== undefined) return [single];
  if (!isPlainObject(condition)) return undefined;
  const operators = Object.keys(condition);
  if (operators.length !== 1) return undefined;
  if (operators[0] === '$eq') {
    const id = idText(condition['$eq']);
    return id === undefined ? undefined : [id];
  }
  if (operators[0] === '$in') {
    const values = condition['$in'];
    if (!Array.isArray(values) || values.length > MAX_IDS) return undefined;
    const ids = values.map(idText);
    return ids.every((id): id is string => id !== undefined) ? ids : undefined;
  }
  return undefined;
}

/**
 * The documents a filter can match when it names them by `_id` (top level, or one clause of a top-level `$and`: the
 * other conditions only narrow it); undefined when it can match any document of the collection.
 */
export function idsOfFilter(filter: unknown): string[] | undefined {
  if (!isPlainObject(filter)) return undefined;
  if ('_id' in filter) return idsOfCondition(filter['_id']);
  const and = filter['$and'];
  if (Array.isArray(and)) {
    for (const clause of and) {
      const ids = idsOfFilter(clause);
      if (ids) return ids;
    }
  }
  return undefined;
}

/** What an aggregation reads: its first `$match`'s documents; opaque when a stage reaches another collection. */
function pipelineReads(pipeline: unknown): { opaque: boolean; ids: string[] | undefined } {
  if (!Array.isArray(pipeline)) return { opaque: true, ids: undefined };
  for (const stage of pipeline) {
    if (!isPlainObject(stage) || Object.keys(stage).some((name) => FOREIGN_STAGES.has(name)))
      return { opaque: true, ids: undefined };
  }
  const first = pipeline[0] as Record<string, unknown> | undefined;
  return { opaque: false, ids: first && '$match' in first ? idsOfFilter(first['$match']) : undefined };
}

function insertedIds(method: string, args: unknown[]): string[] | undefined {
  const documents = method === 'insertOne' ? [args[0]] : Array.isArray(args[0]) ? args[0] : [];
  if (documents.length === 0 || documents.length > MAX_IDS) return undefined;
  // The driver sets a missing `_id` on the document it is given before it sends it.
  const ids = documents.map((document) => (isPlainObject(document) ? idText(document['_id']) : undefined));
  return ids.every((id): id is string => id !== undefined) ? ids : undefined;
}

/** Runs a write and reports it once it settled; the caller waits for what the report returns. */
async function reported<T>(run: () => Promise<T>, report: () => void | Promise<void>): Promise<T> {
  try {
    return await run();
  } finally {
    await report();
  }
}

function trackCollection<T extends Document>(
  collection: Collection<T>,
  hooks: DataAccessHooks,
  options: DataAccessTrackingOptions,
): Collection<T> {
  const name = collection.collectionName;
  const bookkeeping = options.bookkeeping.has(name);
  const read = (ids: string[] | undefined) => {
    if (bookkeeping) void hooks.opaque('read');
    else hooks.read(name, ids);
  };
  const wrote = (ids: string[] | undefined) => (bookkeeping ? undefined : hooks.wrote(name, ids));
  return new Proxy(collection, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      if (READS.has(property)) {
        return (...args: unknown[]) => {
          if (property === 'aggregate') {
            const reads = pipelineReads(args[0]);
            if (reads.opaque) return opaqueCall(method, args, hooks);
            read(reads.ids);
          } else if (property === 'estimatedDocumentCount') {
            read(undefined);
          } else {
            read(idsOfFilter(property === 'distinct' ? args[1] : args[0]));
          }
          return method(...args);
        };
      }
      if (WRITES_BY_FILTER.has(property)) {
        return (...args: unknown[]) => {
          const ids = idsOfFilter(args[0]);
          return reported(
            () => method(...args) as Promise<unknown>,
            () => wrote(ids),
          );
        };
      }
      if (INSERTS.has(property)) {
        return (...args: unknown[]) =>
          reported(
            () => method(...args) as Promise<unknown>,
            () => wrote(insertedIds(property, args)),
          );
      }
      // Anything else (bulkWrite, drop, indexes, watch, ...): may read and write anything.
      return (...args: unknown[]) => opaqueCall(method, args, hooks);
    },
  });
}

/**
 * A call whose effect cannot be named: it read anything, and it wrote anything once its promise settled (a cursor or
 * a stream that may write later, e.g. an aggregation with `$out`, is reported as written at once).
 */
function opaqueCall(method: (...args: unknown[]) => unknown, args: unknown[], hooks: DataAccessHooks): unknown {
  void hooks.opaque('read');
  const result = method(...args);
  if (result instanceof Promise) return reported(() => result, () => hooks.opaque('write'));
  void hooks.opaque('write');
  return result;
}

/**
 * The `Db` a subgraph's code is given: `collection()` answers tracked collections; any other call (a command, a
 * database-wide aggregation, creating or dropping a collection) is opaque; data properties read through unchanged.
 */
export function trackDataAccess(db: Db, hooks: DataAccessHooks, options: DataAccessTrackingOptions): Db {
  return new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property === 'collection') {
        return (name: string, collectionOptions?: Parameters<Db['collection']>[1]) =>
          trackCollection(target.collection(name, collectionOptions), hooks, options);
      }
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      return (...args: unknown[]) => opaqueCall(method, args, hooks);
    },
  });
}
