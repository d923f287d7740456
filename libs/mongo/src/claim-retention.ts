/**
 * Version claims are kept after their write (version-claims.ts) and removed off the write path once their retention
 * (`expiresAt`) has passed (ADR 0020). MongoDB does it itself: the TTL index `VERSION_CLAIMS_TTL_INDEX` on `expiresAt`
 * (`expireAfterSeconds: 0`; its monitor deletes expired documents about once a minute), created with every service's
 * indexes (ensureIndexes). FerretDB v1.24 refuses the option (NotImplemented, code 238), so where the index is absent
 * each subgraph process sweeps instead: a `deleteMany` of the expired claims every few minutes, jittered so that replicas
 * spread out (a sweep is idempotent; two at once delete nothing twice). Hand-written because it is one timer around one
 * command; a job library would add a queue for it.
 */
import type { Db } from 'mongodb';
import type { Logger } from '@platform/logging';
import { VERSION_CLAIMS_COLLECTION, VERSION_CLAIMS_TTL_INDEX, type VersionClaim } from './version-claims';

/** How often a process sweeps where the server has no TTL index (each sweep at 80-120 % of it). */
const SWEEP_INTERVAL_MS = 5 * 60 * 1000;

export interface ClaimRetention {
  stop(): Promise<void>;
}

/** Deletes the claims whose retention ended before `now`; resolves how many. */
export async function sweepExpiredClaims(db: Db, now: Date = new Date()): Promise<number> {
  const result = await db
    .collection<VersionClaim>(VERSION_CLAIMS_COLLECTION)
    .deleteMany({ expiresAt: { $lt: now } });
  return result.deletedCount;
}

/** Whether the server expires claims itself (the TTL index exists). */
async function expiredByServer(db: Db): Promise<boolean> {
  const indexes = await db
    .collection(VERSION_CLAIMS_COLLECTION)
    .listIndexes()
    .toArray()
    .catch(() => []);
  return indexes.some((index) => index['name'] === VERSION_CLAIMS_TTL_INDEX.options?.name);
}

/** Sweeps expired claims every few minutes while the server has no TTL index for them. */
export function claimRetention(db: Db, logger: Logger): ClaimRetention {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const sweep = async () => {
    if (await expiredByServer(db)) return;
    const deleted = await sweepExpiredClaims(db);
    if (deleted > 0) logger.debug({ deleted }, 'expired version claims swept (the server has no TTL index)');
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        running = sweep().catch((error: unknown) =>
          logger.warn({ err: error }, 'version claims sweep failed; next one later'),
        );
        void running.finally(schedule);
      },
      SWEEP_INTERVAL_MS * (0.8 + Math.random() * 0.4),
    );
    timer.unref();
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
