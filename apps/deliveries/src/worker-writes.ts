/**
 * The worker's writes to the events service's database, known to the read cache's generations (ADR 0017, 0019): the
 * facades and the gateway keep the events subgraph's answers (a webhook's delivery log, a webhook) under the
 * generations of what they read, and the subgraph bumps them for its own writes; the worker writes the same database
 * itself (a try's claim and outcome, what is due, a webhook it disables, its own outbox), so it bumps them too, under
 * the events subgraph's name. Without it a log read through a facade with the read cache on was kept as it was before
 * the try until the cache's TTL (apps/e2e/src/events-log-fresh.e2e.ts).
 *
 * The worker's `Db` is tracked (libs/mongo data-access-tracking, as a subgraph's is). A job runs in a scope of its own
 * (`job`) that collects what it wrote and bumps it when the job ends; `flush` bumps what the job wrote so far (the
 * processor calls it once a try is claimed, so the log shows the try while it is on its way). A write outside any job
 * (the sweep, the start) or after its job ended (a push the job started, which runs later in its async context) bumps
 * before its own promise resolves. Hand-written over the two libraries' parts: the
 * subgraphs' scope is an HTTP request's (libs/graphql-server), the worker's is a job's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from 'mongodb';
import { ID_CLAIMS_COLLECTION, trackDataAccess, VERSION_CLAIMS_COLLECTION } from '@platform/mongo';
import { collectWrite, hasWrites, type CollectedWrites, type SubgraphWrites } from '@platform/read-cache';

/** The events subgraph's name: the generations its readers depend on (libs/graphql-server runSubgraph). */
export const EVENTS_SUBGRAPH = 'events';

interface Written extends CollectedWrites {
  /** False once the job ended: what is written later in its async context (a push it started) bumps at once. */
  open: boolean;
}

const nothing = (): Written => ({ flush: false, documents: new Map(), open: true });

export class WorkerWrites {
  private readonly scope = new AsyncLocalStorage<Written>();

  /** `writes` undefined (no REDIS_URL): nothing to bump, the Db is left as it is. */
  constructor(private readonly writes: SubgraphWrites | undefined) {}

  db(db: Db): Db {
    if (!this.writes) return db;
    return trackDataAccess(
      db,
      {
        read: () => undefined,
        wrote: (collection, ids) => this.record({ flush: ids === undefined, collection, ids }),
        opaque: (effect) => (effect === 'write' ? this.record({ flush: true, collection: undefined, ids: undefined }) : undefined),
      },
      { bookkeeping: new Set([VERSION_CLAIMS_COLLECTION, ID_CLAIMS_COLLECTION]) },
    );
  }

  /** Runs one job in a scope of its own; what it wrote is bumped before the job is done. */
  job<T>(run: () => Promise<T>): Promise<T> {
    if (!this.writes) return run();
    return this.scope.run(nothing(), async () => {
      try {
        return await run();
      } finally {
        // Closed first: a write recorded while the last bump is on its way is bumped at once (record), not left here.
        const written = this.scope.getStore()!;
        written.open = false;
        await this.bumpCollected(written);
      }
    });
  }

  /** Bumps what the current job wrote so far. */
  async flush(): Promise<void> {
    const written = this.scope.getStore();
    if (written?.open) await this.bumpCollected(written);
  }

  private async bumpCollected(written: Written): Promise<void> {
    if (!this.writes || !hasWrites(written)) return;
    const pending = { flush: written.flush, documents: new Map(written.documents) };
    written.flush = false;
    written.documents.clear();
    await this.writes.wrote(pending);
  }

  close(): Promise<void> {
    return this.writes?.close() ?? Promise.resolve();
  }

  private record(write: Parameters<typeof collectWrite>[1]): void | Promise<void> {
    const job = this.scope.getStore();
    if (job?.open) return collectWrite(job, write);
    // Outside a job (or after it ended): bumped now, and the write's caller waits for it.
    const alone = nothing();
    collectWrite(alone, write);
    return this.writes!.wrote(alone);
  }
}
