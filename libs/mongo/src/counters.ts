/**
 * Integer ids that are handed out once, ever, without a database round trip per id (ADR 0020, ADR 0008). A process
 * claims a block of BLOCK_SIZE ids at once by inserting the claim of the block's last value into `id_claims`
 * (`{_id: "<sequence>:<value>"}`, the primary key every server enforces atomically: of concurrent claimers of one block
 * exactly one wins, the others take the next block) and hands its ids out from memory. Blocks are aligned to multiples
 * of BLOCK_SIZE, so two blocks never overlap; ids of a block a process did not use before it stopped are gaps, never
 * reused. Where a block starts is read once per process and sequence (the highest claim so far), not on every create:
 * before, each create read it, a pass over a collection that grows with every record on FerretDB v1.
 *
 * The claim of a block's last value has the shape the per-id claims of earlier releases had, so a replica of the
 * previous release still running during a rollout proposes values above every block handed out (it reads the highest
 * claim). A counters document with $inc would be the MongoDB idiom, but FerretDB v1 runs findAndModify as a read and a
 * write and loses concurrent increments.
 */
import type { Db, IndexSpecification } from 'mongodb';
import { currentDeadline } from '@platform/contracts';
import { isDuplicateKeyError } from './mongo-errors';

export const ID_CLAIMS_COLLECTION = 'id_claims';
/** Ids a process claims at once. */
export const ID_BLOCK_SIZE = 100;
/** Blocks tried before reading the highest claim again (other processes took them). */
const BLOCK_ATTEMPTS = 50;

interface ClaimDocument {
  _id: string;
  sequence: string;
  value: number;
  claimedAt: Date;
  /** A block claim: the first value of the block whose last value this is. */
  blockFrom?: number;
}

/** The index the start-up read of the highest claim uses; part of every service's index list via ensureIndexes. */
export const ID_CLAIMS_INDEX: { collection: string; key: IndexSpecification; options: { name: string } } = {
  collection: ID_CLAIMS_COLLECTION,
  key: { sequence: 1, value: -1 },
  options: { name: 'sequence_value' },
};

/** One sequence's ids in this process: the current block, and the block to try next. */
class SequenceBlocks {
  private next = 0;
  private end = 0;
  /** The block to try next; undefined until the highest claim was read. */
  private nextBlock: number | undefined;
  private refilling: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly sequence: string,
  ) {}

  async take(): Promise<number> {
    while (this.next === 0 || this.next > this.end) {
      // Concurrent creates of this process wait for one refill.
      this.refilling ??= this.refill().finally(() => (this.refilling = undefined));
      await this.refilling;
    }
    const value = this.next;
    this.next += 1;
    return value;
  }

  private async refill(): Promise<void> {
    const claims = this.db.collection<ClaimDocument>(ID_CLAIMS_COLLECTION);
    const deadline = currentDeadline();
    for (let attempt = 0; ; attempt += 1) {
      deadline.ensureTime();
      if (this.nextBlock === undefined || (attempt > 0 && attempt % BLOCK_ATTEMPTS === 0)) {
        this.nextBlock = Math.ceil((await this.highestClaimed(deadline.remainingMs())) / ID_BLOCK_SIZE);
      }
      const block = this.nextBlock;
      const from = block * ID_BLOCK_SIZE + 1;
      const value = (block + 1) * ID_BLOCK_SIZE;
      this.nextBlock = block + 1;
      try {
        await claims.insertOne(
          { _id: `${this.sequence}:${value}`, sequence: this.sequence, value, claimedAt: new Date(), blockFrom: from },
          { maxTimeMS: Math.max(1, deadline.remainingMs()) },
        );
        this.next = from;
        this.end = value;
        return;
      } catch (error) {
        // Another process holds this block (or an older release claimed its last value): the next one.
        if (!isDuplicateKeyError(error)) throw error;
      }
    }
  }

  private async highestClaimed(maxTimeMS: number): Promise<number> {
    const highest = await this.db
      .collection<ClaimDocument>(ID_CLAIMS_COLLECTION)
      .find({ sequence: this.sequence }, { projection: { value: 1 }, maxTimeMS: Math.max(1, maxTimeMS) })
      .sort({ value: -1 })
      .limit(1)
      .next();
    return highest?.value ?? 0;
  }
}

const sequences = new WeakMap<Db, Map<string, SequenceBlocks>>();

/** The next id of `sequence` in this database: unique across processes and restarts, never reused; gaps allowed. */
export function nextSequenceValue(db: Db, sequence: string): Promise<number> {
  let ofDb = sequences.get(db);
  if (!ofDb) {
    ofDb = new Map();
    sequences.set(db, ofDb);
  }
  let blocks = ofDb.get(sequence);
  if (!blocks) {
    blocks = new SequenceBlocks(db, sequence);
    ofDb.set(sequence, blocks);
  }
  return blocks.take();
}

/**
 * Marks every value up to `value` as taken (bulk loads that insert their own ids, e.g. the benchmark's seed), before
 * the services start: a running process keeps handing out the block it holds.
 */
export async function reserveSequenceUpTo(db: Db, sequence: string, value: number): Promise<void> {
  try {
    await db
      .collection<ClaimDocument>(ID_CLAIMS_COLLECTION)
      .insertOne({ _id: `${sequence}:${value}`, sequence, value, claimedAt: new Date() });
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
}
