/**
 * Turns for the writes of one process on the real FerretDB (write-turns.ts, ADR 0020 "Contention"), seen on the wire
 * through the test kit's recorder: writers of one record in a process never race for its version claim (one claim
 * insert and one write per update, none lost), and on a server with one writer per database the process sends its
 * write steps there one at a time, in arrival order, each wait within the deadline.
 */
import { MongoNetworkError, type Db } from 'mongodb';
import { Deadline, withDeadline } from '@platform/contracts';
import { AppError } from '@platform/errors';
import { suiteDatabases, type RecordedCommand } from '@platform/testing';
import {
  CLAIM_FRESH_MS,
  deleteVersioned,
  updateVersioned,
  VERSION_CLAIMS_COLLECTION,
  versionOf,
  writeVersioned,
} from './version-claims';
import { databaseTurn } from './write-turns';

interface Thing {
  _id: number;
  value: number;
  version?: number;
}

const WRITES = new Set(['insert', 'update', 'delete', 'findAndModify']);

describe('write turns on a real server', () => {
  const databases = suiteDatabases({ recordWire: true });
  let db: Db;

  beforeAll(() => {
    db = databases.fresh('turns_');
  });

  const things = () => db.collection<Thing>('things');
  const since = (first: number, name?: string, collection?: string): RecordedCommand[] =>
    databases.commands()
      .slice(first)
      .filter((c) => c.db === db.databaseName && (!name || c.name === name) && (!collection || c.body[c.name] === collection));

  it('when 16 writers update 4 records at once in one process, then each commits as its own version with one claim insert and one write, none lost', async () => {
    await things().insertMany([1, 2, 3, 4].map((id) => ({ _id: id, value: 0 })));
    const first = databases.commands().length;
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, writer) =>
        withDeadline(Deadline.in(20_000, 3_000), () =>
          updateVersioned({ db, collection: things() }, (writer % 4) + 1, { value: writer }),
        ),
      ),
    );
    for (const id of [1, 2, 3, 4]) {
      const versions = results.filter((doc) => doc!._id === id).map((doc) => versionOf(doc!));
      expect(versions.sort()).toEqual([1, 2, 3, 4]);
    }
    // A lost claim would show as a further claim insert (and a read and a backoff before it).
    expect(since(first, 'insert', VERSION_CLAIMS_COLLECTION)).toHaveLength(16);
    expect(since(first, 'findAndModify', 'things')).toHaveLength(16);
  });

  it("when writes of one process meet on one database of a single-writer server, then they reach it one at a time, each update's claim and write in one turn", async () => {
    await things().insertMany([11, 12, 13, 14, 15, 16, 17, 18].map((id) => ({ _id: id, value: 0 })));
    const first = databases.commands().length;
    await Promise.all(
      [11, 12, 13, 14, 15, 16, 17, 18].map((id) =>
        withDeadline(Deadline.in(20_000, 3_000), () => updateVersioned({ db, collection: things() }, id, { value: id })),
      ),
    );
    const writes = since(first).filter((c) => WRITES.has(c.name));
    expect(writes.length).toBe(16);
    // No write was sent before the one before it was answered.
    for (let i = 1; i < writes.length; i++) {
      const before = writes[i - 1]!;
      expect(writes[i]!.sentAt!).toBeGreaterThanOrEqual(before.sentAt! + before.ms!);
    }
    // Each update took one turn for its claim and its write: the two follow each other, no other write between them.
    for (let i = 0; i < writes.length; i += 2) {
      const [claim, write] = [writes[i]!, writes[i + 1]!];
      expect([claim.name, write.name]).toEqual(['insert', 'findAndModify']);
      expect((claim.body['documents'] as Array<{ recordId: number }>)[0]!.recordId).toBe((write.body['query'] as { _id: number })._id);
    }
  });

  it("when a write's answer is lost, then it waits out its commit bound outside the turn: other writes of the process go on meanwhile", async () => {
    await things().insertMany([21, 22].map((id) => ({ _id: id, value: 0 })));
    const order: string[] = [];
    // The write commits, then its answer is lost: the writer waits out the commit bound (1 s here) before reading.
    const lost = withDeadline(Deadline.in(20_000, 1_000), () =>
      writeVersioned<Thing, Thing>({
        db,
        resource: 'things',
        id: 21,
        expectedVersion: null,
        read: (bound) => things().findOne({ _id: 21 }, bound),
        write: async (from) => {
          await things().updateOne({ _id: 21 }, { $set: { value: 21, version: from + 1 } });
          setImmediate(() => order.push('answer lost'));
          throw new MongoNetworkError('connection reset after the command was sent');
        },
        settled: (from, after) => (after && versionOf(after) > from ? { committed: after } : 'not-applied'),
      }),
    ).then((doc) => {
      order.push('lost answer settled');
      return doc;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const other = await withDeadline(Deadline.in(20_000, 1_000), () =>
      updateVersioned({ db, collection: things() }, 22, { value: 22 }),
    );
    order.push('other written');
    expect(other!.version).toBe(1);
    expect((await lost)!.version).toBe(1);
    expect(order).toEqual(['answer lost', 'other written', 'lost answer settled']);
  });

  it('when the turn does not come before the deadline, then the waiting write is refused with 503 and Retry-After and sends nothing', async () => {
    let release!: () => void;
    const holding = databaseTurn(db, Deadline.in(20_000, 3_000), () => new Promise<void>((resolve) => (release = resolve)));
    const first = databases.commands().length;
    const error = await withDeadline(Deadline.in(300, 3_000), () =>
      updateVersioned({ db, collection: things() }, 1, { value: 99 }),
    ).catch((e: unknown) => e);
    release();
    await holding;
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('SERVICE_UNAVAILABLE');
    expect((error as AppError).headers?.['retry-after']).toBeTruthy();
    expect(since(first).filter((c) => WRITES.has(c.name))).toHaveLength(0);
    expect((await things().findOne({ _id: 1 }))!.value).not.toBe(99);
  });
  it('when a write lost its claim to a holder and then its turn does not come before the deadline, then 409 with Retry-After (others kept the record busy), nothing sent', async () => {
    await things().insertOne({ _id: 31, value: 0 });
    const now = Date.now();
    await db.collection(VERSION_CLAIMS_COLLECTION).insertOne({
      _id: 'things:31:v0' as never,
      resource: 'things',
      recordId: 31,
      version: 0,
      attempt: 0,
      claimedAt: new Date(now),
      settledBy: new Date(now + 30_000),
      expiresAt: new Date(now + 3_600_000),
    });
    const first = databases.commands().length;
    const writing = withDeadline(Deadline.in(700, 3_000), () =>
      updateVersioned({ db, collection: things() }, 31, { value: 99 }),
    ).catch((e: unknown) => e);
    // Once the claim was lost (the writer backs off), another flow of the process holds the database's turn.
    for (let waited = 0; !since(first, 'insert', VERSION_CLAIMS_COLLECTION).length && waited < 500; waited += 5)
      await new Promise((resolve) => setTimeout(resolve, 5));
    let release!: () => void;
    const holding = databaseTurn(db, Deadline.in(20_000, 3_000), () => new Promise<void>((resolve) => (release = resolve)));
    const error = await writing;
    release();
    await holding;
    expect((error as AppError).code).toBe('CONFLICT');
    expect((error as AppError).headers?.['retry-after']).toBe('1');
    expect(since(first).filter((c) => c.name === 'findAndModify' || c.name === 'update')).toHaveLength(0);
    expect((await things().findOne({ _id: 31 }))!.value).toBe(0);
  });

  /**
   * With events on, a committed write's claim is deleted after a while (ADR 0023); a writer that read the version
   * before that write, and claims it after the deletion, must not win it. The freshness rule (CLAIM_FRESH_MS): a read
   * that aged past it while the write waited for its turn is read again before anything is claimed.
   */
  it('when a write waited past CLAIM_FRESH_MS for its turn with a read of a version that moved on, then it reads again and claims only the version that is there; a conditional one answers 412 before claiming or cascading', async () => {
    await things().insertMany([{ _id: 41, value: 0, version: 0 }, { _id: 42, value: 0, version: 0 }]);
    const stale41 = (await things().findOne({ _id: 41 }))!;
    const stale42 = (await things().findOne({ _id: 42 }))!;
    // Another writer moved both to version 1, and its claims of version 0 are gone (dropped after its write).
    await updateVersioned({ db, collection: things() }, 41, { value: 1 });
    await updateVersioned({ db, collection: things() }, 42, { value: 1 });
    await db.collection(VERSION_CLAIMS_COLLECTION).deleteMany({ _id: { $in: ['things:41:v0', 'things:42:v0'] } as never });

    // The database turn is held longer than CLAIM_FRESH_MS, so the writes below claim with aged reads.
    let release!: () => void;
    const holding = databaseTurn(db, Deadline.in(20_000, 3_000), () => new Promise<void>((resolve) => (release = resolve)));
    const first = databases.commands().length;
    const cascades: number[] = [];
    const unconditional = withDeadline(Deadline.in(20_000, 3_000), () =>
      updateVersioned({ db, collection: things() }, 41, { value: 2 }, null, {}, { current: stale41, currentReadAt: Date.now() }),
    );
    const conditional = withDeadline(Deadline.in(20_000, 3_000), () =>
      deleteVersioned({ db, collection: things() }, 42, 0, {}, async () => void cascades.push(42), { current: stale42, currentReadAt: Date.now() }),
    ).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, CLAIM_FRESH_MS + 200));
    release();
    await holding;

    expect(versionOf((await unconditional)!)).toBe(2);
    expect(((await conditional) as AppError).code).toBe('PRECONDITION_FAILED');
    expect(cascades).toEqual([]);
    const claims = since(first, 'insert', VERSION_CLAIMS_COLLECTION).map((c) => (c.body['documents'] as Array<{ _id: string }>)[0]!._id);
    expect(claims).toEqual(['things:41:v1']);
    expect((await things().findOne({ _id: 42 }))!.version).toBe(1);
  });
  it('when a caller hands in a read older than CLAIM_FRESH_MS (its own read was slow), then the write reads again and claims only the version that is there', async () => {
    await things().insertOne({ _id: 43, value: 0, version: 0 });
    const stale = (await things().findOne({ _id: 43 }))!;
    await updateVersioned({ db, collection: things() }, 43, { value: 1 });
    await db.collection(VERSION_CLAIMS_COLLECTION).deleteMany({ _id: 'things:43:v0' as never });
    const first = databases.commands().length;
    const written = await withDeadline(Deadline.in(20_000, 3_000), () =>
      updateVersioned({ db, collection: things() }, 43, { value: 2 }, null, {}, {
        current: stale,
        currentReadAt: Date.now() - CLAIM_FRESH_MS - 1,
      }),
    );
    expect(versionOf(written!)).toBe(2);
    const claims = since(first, 'insert', VERSION_CLAIMS_COLLECTION).map((c) => (c.body['documents'] as Array<{ _id: string }>)[0]!._id);
    expect(claims).toEqual(['things:43:v1']);
  });
});
