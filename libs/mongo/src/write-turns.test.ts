/**
 * Turns for the writes of one record in one process on the real FerretDB (write-turns.ts, ADR 0020 "Contention"), seen
 * on the wire through the test kit's recorder: its writers never race for its version claim (one claim insert and one
 * write per update, none lost); a write waiting out a lost answer holds up no other record; aged reads are read again.
 */
import { MongoNetworkError, type Db } from 'mongodb';
import { Deadline, withDeadline } from '@platform/contracts';
import type { AppError } from '@platform/errors';
import { suiteDatabases, type RecordedCommand } from '@platform/testing';
import {
  CLAIM_FRESH_MS,
  deleteVersioned,
  updateVersioned,
  VERSION_CLAIMS_COLLECTION,
  versionOf,
  writeVersioned,
} from './version-claims';

interface Thing {
  _id: number;
  value: number;
  version?: number;
}

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

  it("when a write's answer is lost, then it waits out its commit bound while other writes of the process go on", async () => {
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

  /**
   * With events on, a committed write's claim is deleted after a while (ADR 0023); a writer that read the version
   * before that write, and claims it after the deletion, must not win it. The freshness rule (CLAIM_FRESH_MS): a read
   * that aged past it is read again before anything is claimed or cascaded.
   */
  it('when a conditional write comes with an aged read of a version that moved on, then it answers 412 before claiming or cascading', async () => {
    await things().insertOne({ _id: 42, value: 0, version: 0 });
    const stale = (await things().findOne({ _id: 42 }))!;
    // Another writer moved it to version 1, and its claim of version 0 is gone (dropped after its write).
    await updateVersioned({ db, collection: things() }, 42, { value: 1 });
    await db.collection(VERSION_CLAIMS_COLLECTION).deleteMany({ _id: 'things:42:v0' as never });
    const first = databases.commands().length;
    const cascades: number[] = [];
    const error = await withDeadline(Deadline.in(20_000, 3_000), () =>
      deleteVersioned({ db, collection: things() }, 42, 0, {}, async () => void cascades.push(42), {
        current: stale,
        currentReadAt: Date.now() - CLAIM_FRESH_MS - 1,
      }),
    ).catch((e: unknown) => e);
    expect((error as AppError).code).toBe('PRECONDITION_FAILED');
    expect(cascades).toEqual([]);
    expect(since(first, 'insert', VERSION_CLAIMS_COLLECTION)).toHaveLength(0);
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
