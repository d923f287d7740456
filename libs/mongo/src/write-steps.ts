/**
 * What every write step of a request shares (ADR 0020): none starts after the request's deadline (`currentDeadline`,
 * handed down by the caller), and a failure after which the write may have been applied is OUTCOME_UNKNOWN.
 */
import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb';
import { currentDeadline, type Deadline } from '@platform/contracts';
import { outcomeUnknown } from '@platform/errors';
import { writeMayHaveApplied } from './mongo-errors';

const BACKOFF_FIRST_MS = 10;
const BACKOFF_MAX_MS = 250;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The pause before retry `n` (0, 1, ...): full jitter over a doubling window of 10 ms to 250 ms, never past the deadline. */
export const backoffMs = (n: number, deadline: Deadline): number =>
  Math.min(deadline.remainingMs(), Math.random() * Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** n));

/**
 * Inserts `document` as a write step of the current request: not after its deadline, bounded by its commit timeout
 * where the server honours maxTimeMS on inserts (MongoDB; FerretDB v1 ignores it there); a failure after which it may
 * have been inserted is OUTCOME_UNKNOWN. Other errors (a duplicate key) as they come.
 */
export async function insertWithinDeadline<T extends Document>(
  collection: Collection<T>,
  document: OptionalUnlessRequiredId<T>,
): Promise<void> {
  const deadline = currentDeadline();
  deadline.ensureTime();
  try {
    await collection.insertOne(document, { maxTimeMS: deadline.commitMs });
  } catch (error) {
    if (writeMayHaveApplied(error)) throw outcomeUnknown(error);
    throw error;
  }
}
