/**
 * Deletion marks: a record that is being (or was) deleted, written before its dependants are removed, so that writes
 * racing the deletion can see it and undo themselves. Without transactions (FerretDB v1) a cascade cannot stop a
 * concurrent insert from attaching to its parent; what holds on every server is this order:
 *
 *   deleter: mark the parent, then delete its dependants          writer: insert the dependant, then look for marks
 *
 * A writer that finds no mark looked before the mark existed, so its insert came before the deleter's sweep, which
 * removes it; a writer that finds one deletes its own insert. Either way nothing is left attached to a deleted
 * parent. Marks are never removed (ids are never reused, see counters.ts), and are keyed by a string `_id` so that
 * each lookup is a primary-key read on FerretDB too (it pushes down only string and ObjectId `_id` equality).
 */
import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError } from './mongo-errors';

export const DELETION_MARKS_COLLECTION = 'deletion_marks';

interface DeletionMarkDocument {
  _id: string;
  markedAt: Date;
}

/** A deleted record, named by its kind and integer id ("post", 7). */
export interface DeletedRecord {
  kind: string;
  id: number;
}

const keyOf = (record: DeletedRecord) => `${record.kind}:${record.id}`;

/**
 * An account whose deletion is under way (ADR 0002: each subgraph's purge marks it first), in every subgraph that keeps
 * records of its own: every create for that account checks it after its insert.
 */
export const deletedAccount = (id: number): DeletedRecord => ({ kind: 'user', id });

export class DeletionMarks {
  private readonly marks: Collection<DeletionMarkDocument>;

  constructor(db: Db) {
    this.marks = db.collection<DeletionMarkDocument>(DELETION_MARKS_COLLECTION);
  }

  /** Idempotent: marking twice (a retried deletion) keeps the first mark. */
  async mark(record: DeletedRecord): Promise<void> {
    try {
      await this.marks.insertOne({ _id: keyOf(record), markedAt: new Date() });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }

  /**
   * After an insert that attaches to `records`: when one of them is marked deleted, undoes the insert and resolves the
   * marked ones (the caller refuses with the fitting error); [] when none is and the insert stands.
   */
  async undoIfMarked(records: readonly DeletedRecord[], undo: () => Promise<unknown>): Promise<DeletedRecord[]> {
    const marked = await this.marked(records);
    if (marked.length > 0) await undo();
    return marked;
  }

  /** Those of the records that are marked deleted (one primary-key read each, in parallel). */
  async marked(records: readonly DeletedRecord[]): Promise<DeletedRecord[]> {
    const found = await Promise.all(
      records.map((record) => this.marks.findOne({ _id: keyOf(record) }, { projection: { _id: 1 } })),
    );
    return records.filter((_, index) => found[index] !== null);
  }
}
