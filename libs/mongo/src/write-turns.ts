/**
 * Turns for the versioned writes of one record in one process (ADR 0020, "Contention"): they queue, earliest deadline
 * first, each wait bounded by the request's deadline, instead of racing for the record's version claim (ADR 0012).
 */
import { E_TIMEOUT, Mutex, withTimeout } from 'async-mutex';
import type { Deadline } from '@platform/contracts';

/**
 * Waits for `lock` until the deadline (`onTimeout` says what the caller is told when it passes first, also when the
 * turn came late: a timer may fire after its time under load), then runs `step` in the turn.
 */
async function within<T>(lock: Mutex, deadline: Deadline, onTimeout: () => Error, step: () => Promise<T>): Promise<T> {
  deadline.ensureTime();
  const bounded = withTimeout(lock, Math.max(1, deadline.remainingMs()));
  let release: () => void;
  try {
    // The earliest deadline goes first (ties in arrival order).
    release = await bounded.acquire(-deadline.startBy);
  } catch (error) {
    if (error === E_TIMEOUT) throw onTimeout();
    throw error;
  }
  try {
    if (deadline.expired()) throw onTimeout();
    return await step();
  } finally {
    release();
  }
}

/** The records being written in this process: their turns, dropped when nobody waits. */
const documents = new Map<string, { lock: Mutex; users: number }>();

/**
 * Runs `write` in this process's turn on one record (`key`: database, collection and id). `waited` tells it whether
 * another writer of the record went first (what it read before may be stale). A wait past the deadline throws
 * `onTimeout()`.
 */
export async function documentTurn<T>(
  key: string,
  deadline: Deadline,
  onTimeout: () => Error,
  write: (waited: boolean) => Promise<T>,
): Promise<T> {
  let entry = documents.get(key);
  if (!entry) {
    entry = { lock: new Mutex(), users: 0 };
    documents.set(key, entry);
  }
  const waited = entry.lock.isLocked();
  entry.users += 1;
  try {
    return await within(entry.lock, deadline, onTimeout, () => write(waited));
  } finally {
    entry.users -= 1;
    if (entry.users === 0) documents.delete(key);
  }
}
