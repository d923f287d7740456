/**
 * The one place a subgraph ties its data access to the generations (docs/decisions/0017-read-cache.md,
 * docs/decisions/0019-entity-generations.md). Its `Db` is tracked (libs/mongo data-access-tracking), and each HTTP
 * request runs in a scope of its own that collects what the request read and wrote:
 *
 * - writes: the generations of the documents written (and of their collections; the whole subgraph's for a write that
 *   cannot name its documents) are bumped after the operation ran and before its response leaves, whatever the
 *   operation and its outcome (a failed mutation may have written part). A write outside any request (start-up, the
 *   bootstrap admin) or after its request answered (a last-use stamp) bumps before its own promise resolves.
 * - reads: a query's answer names the generations it depends on (READ_DEPENDENCIES_EXTENSION), which the reader keeps
 *   its copy under; `none` when it read something no write bumps.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApolloServerPlugin, BaseContext, GraphQLRequestListener } from '@apollo/server';
import type { Db } from 'mongodb';
import { ID_CLAIMS_COLLECTION, trackDataAccess, VERSION_CLAIMS_COLLECTION, type DataAccessHooks } from '@platform/mongo';
import {
  collectionGeneration,
  collectWrite,
  entityGeneration,
  flushGeneration,
  hasWrites,
  READ_DEPENDENCIES_EXTENSION,
  type CollectedWrites,
  type SubgraphWrites,
} from '@platform/read-cache';

/** A request's reads and writes so far. */
interface RequestAccess extends CollectedWrites {
  /** False once the response is on its way: later writes bump on their own. */
  open: boolean;
  /** Generation keys the request's reads depend on. */
  reads: Set<string>;
  /** Collections read by `_id`, with how many ids, to fold a large read into its collection's generation. */
  readIds: Map<string, Set<string>>;
  opaqueRead: boolean;
}

/** Beyond this many documents of one collection, a request's reads depend on the collection's generation instead. */
const MAX_DOCUMENTS_PER_COLLECTION = 100;
const BOOKKEEPING = new Set([VERSION_CLAIMS_COLLECTION, ID_CLAIMS_COLLECTION]);

const newAccess = (): RequestAccess => ({
  open: true,
  reads: new Set(),
  readIds: new Map(),
  opaqueRead: false,
  flush: false,
  documents: new Map(),
});

export class ReadCacheTracking {
  private readonly storage = new AsyncLocalStorage<RequestAccess>();
  private readonly hooks: DataAccessHooks;

  constructor(
    private readonly subgraph: string,
    private readonly writes: SubgraphWrites,
  ) {
    this.hooks = {
      read: (collection, ids) => this.read(collection, ids),
      wrote: (collection, ids) => this.record({ flush: ids === undefined, collection, ids }),
      opaque: (effect) => {
        if (effect === 'read') {
          const access = this.storage.getStore();
          if (access) access.opaqueRead = true;
          return undefined;
        }
        return this.record({ flush: true, collection: undefined, ids: undefined });
      },
    };
  }

  /** The subgraph's `Db`, tracked: what its code reads and writes through it is reported here. */
  db(db: Db): Db {
    return trackDataAccess(db, this.hooks, { bookkeeping: BOOKKEEPING });
  }

  /** Runs each HTTP request in a scope of its own. */
  wrap(
    handler: (req: IncomingMessage, res: ServerResponse) => void,
  ): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => this.storage.run(newAccess(), () => handler(req, res));
  }

  /** Bumps what the operation wrote before its response leaves, and names what a query read in the response. */
  plugin<TContext extends BaseContext>(): ApolloServerPlugin<TContext> {
    const storage = this.storage;
    // One listener for every request: reads pay for a property check, not an allocation.
    const listener: GraphQLRequestListener<TContext> = {
      willSendResponse: async ({ operation, response }) => {
        const access = storage.getStore();
        if (!access) return;
        access.open = false;
        if (hasWrites(access)) await this.writes.wrote(access);
        if (operation?.operation !== 'query' || response.body.kind !== 'single') return;
        const result = response.body.singleResult;
        result.extensions = {
          ...result.extensions,
          [READ_DEPENDENCIES_EXTENSION]: access.opaqueRead
            ? 'none'
            : [flushGeneration(this.subgraph), ...access.reads],
        };
      },
    };
    return { requestDidStart: async () => listener };
  }

  private read(collection: string, ids: readonly string[] | undefined): void {
    const access = this.storage.getStore();
    if (!access) return;
    const whole = collectionGeneration(this.subgraph, collection);
    if (ids === undefined) {
      access.reads.add(whole);
      return;
    }
    if (access.reads.has(whole)) return;
    const seen = access.readIds.get(collection) ?? new Set<string>();
    access.readIds.set(collection, seen);
    for (const id of ids) seen.add(id);
    if (seen.size > MAX_DOCUMENTS_PER_COLLECTION) {
      for (const id of seen) access.reads.delete(entityGeneration(this.subgraph, collection, id));
      access.reads.add(whole);
      return;
    }
    for (const id of ids) access.reads.add(entityGeneration(this.subgraph, collection, id));
  }

  /** A write: kept for the response while its request is open, else bumped now (the write's caller waits for it). */
  private record(write: Parameters<typeof collectWrite>[1]): void | Promise<void> {
    const access = this.storage.getStore();
    if (access?.open) return collectWrite(access, write);
    const alone: CollectedWrites = { flush: false, documents: new Map() };
    collectWrite(alone, write);
    return this.writes.wrote(alone);
  }
}
