/**
 * Turns for the writes of one process (ADR 0020, "Contention"): where concurrent writers would only fight, they queue
 * instead, first come first served, each wait bounded by the request's deadline.
 *
 * - **One document:** the versioned writes of one record in this process take turns (`documentTurn`). Without it, two
 *   writers of one record race for its version claim; the loser backs off at random, reads again and claims again,
 *   each a database round trip, and under enough of them some lose until their deadline (409). Across replicas the claim
 *   still decides; within one, nobody loses a claim to a neighbour.
 * - **One database on a server with one writer (FerretDB v1: SQLite):** the writes of this process take turns on the
 *   database (`databaseTurn`; a versioned write takes one turn for its claim, outbox entry and write). SQLite lets one
 *   writer in and answers SQLITE_BUSY to the others, which back off at random and try again: the database's time goes
 *   to refusals and a writer can lose every round until its deadline. Queued here, each write runs when the one before
 *   finished. MongoDB takes concurrent writers itself: no turns there. The server is asked once per client, at connect
 *   (`buildInfo` names FerretDB).
 *
 * Both serve the waiter whose deadline comes first (arrival order among equal ones), so a writer that waited for its
 * record's turn is not queued again behind later arrivals on the database.
 *
 * On `async-mutex`: its Mutex queues waiters by priority, in arrival order within one, and `withTimeout` bounds a wait
 * (a waiter that gives up releases its turn at once if it comes later).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { E_TIMEOUT, Mutex, withTimeout } from 'async-mutex';
import type { Db, MongoClient } from 'mongodb';
import { deadlineExceeded, type Deadline } from '@platform/contracts';

/** Per client: whether its server lets one writer in per database (asked once; null: not known), each database's turns. */
interface ServerTurns {
  singleWriter: Promise<boolean | null>;
  databases: Map<string, Mutex>;
}
const servers = new WeakMap<MongoClient, ServerTurns>();

/** FerretDB answers buildInfo with its own version beside the MongoDB one it speaks. */
async function isSingleWriter(db: Db): Promise<boolean | null> {
  try {
    const info = await db.admin().command({ buildInfo: 1 });
    return typeof info['ferretdbVersion'] === 'string';
  } catch {
    // Not known now (the server away): no turns; the write itself meets what is wrong.
    return null;
  }
}

function serverTurns(db: Db): ServerTurns {
  let turns = servers.get(db.client);
  if (!turns) {
    turns = { singleWriter: isSingleWriter(db), databases: new Map() };
    servers.set(db.client, turns);
    // A question that failed is asked again at the next write.
    void turns.singleWriter.then((single) => {
      if (single === null) servers.delete(db.client);
    });
  }
  return turns;
}

/** Asks the server whether it has one writer per database, once per client: at connect, off every request's path. */
export async function learnWriteTurns(db: Db): Promise<void> {
  await serverTurns(db).singleWriter;
}

/**
 * Waits for `lock` until the deadline (`onTimeout` says what the caller is told when it passes first, also when the
 * turn came late: a timer may fire after its time under load), then runs `step`, which gets the means to leave its turn
 * early (once; the end of the step leaves it too).
 */
async function within<T>(
  lock: Mutex,
  deadline: Deadline,
  onTimeout: () => Error,
  step: (leave: () => void) => Promise<T>,
): Promise<T> {
  deadline.ensureTime();
  const bounded = withTimeout(lock, Math.max(1, deadline.remainingMs()));
  let release: () => void;
  try {
    // The earliest deadline goes first (ties in arrival order): a writer that already waited for a record's turn does
    // not queue again behind writers that arrived after it.
    release = await bounded.acquire(-deadline.startBy);
  } catch (error) {
    if (error === E_TIMEOUT) throw onTimeout();
    throw error;
  }
  let left = false;
  const leave = () => {
    if (left) return;
    left = true;
    release();
  };
  try {
    if (deadline.expired()) throw onTimeout();
    return await step(leave);
  } finally {
    leave();
  }
}

/** A database turn the current flow holds (`active` until its step ended or left it: work left behind holds nothing). */
interface HeldTurn {
  gate: Mutex;
  active: boolean;
  leave: () => void;
}
const heldTurns = new AsyncLocalStorage<readonly HeldTurn[]>();

/**
 * Runs `step` (one or more write steps on `db`) in this process's turn on the database when its server has one writer
 * per database; otherwise at once. A step inside a turn on the same database (a write of several steps taking one turn
 * for all of them) runs at once. A wait past the deadline throws the deadline's error: nothing was sent.
 */
export async function databaseTurn<T>(
  db: Db,
  deadline: Deadline,
  step: () => Promise<T>,
  refusal: () => Error = deadlineExceeded,
): Promise<T> {
  const turns = serverTurns(db);
  if (!(await turns.singleWriter)) return step();
  let gate = turns.databases.get(db.databaseName);
  if (!gate) {
    gate = new Mutex();
    turns.databases.set(db.databaseName, gate);
  }
  const outer = heldTurns.getStore() ?? [];
  if (outer.some((turn) => turn.gate === gate && turn.active)) return step();
  // By default the deadline's own error: SERVICE_UNAVAILABLE with Retry-After, nothing was changed.
  return within(gate, deadline, refusal, async (leave) => {
    const turn: HeldTurn = {
      gate: gate!,
      active: true,
      leave: () => {
        turn.active = false;
        leave();
      },
    };
    try {
      return await heldTurns.run([...outer, turn], step);
    } finally {
      turn.active = false;
    }
  });
}

/**
 * Leaves this flow's turn on `db` early, if it holds one: for what may take long and needs no turn (waiting out an
 * unknown outcome's commit bound before the read that settles it). The rest of the flow's steps take no turn.
 */
export function leaveDatabaseTurn(db: Db): void {
  const gate = servers.get(db.client)?.databases.get(db.databaseName);
  for (const turn of heldTurns.getStore() ?? []) if (turn.gate === gate && turn.active) turn.leave();
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
