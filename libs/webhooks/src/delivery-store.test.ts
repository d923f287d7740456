/**
 * The attempt log on FerretDB, as the worker writes it: a try's claim and its outcome are two inserts, never an update
 * (on FerretDB v1 an update is a pass over the whole collection under the database's one writer, and the attempts
 * collection keeps every try), and the readers see each try with its outcome. The processes' commands are recorded on
 * the wire, so what is checked is what is sent.
 */
import type { Db } from 'mongodb';
import { suiteDatabases, unique } from '@platform/testing';
import { ATTEMPTS_COLLECTION, DeliveryStore, newDelivery } from './delivery-store';

describe('the attempt log', () => {
  const databases = suiteDatabases({ recordWire: true });
  let db: Db;

  beforeAll(() => {
    db = databases.fresh('attempt_log_');
  });

  const delivery = () =>
    newDelivery(
      { _id: 7, ownerId: 1 },
      { id: `evt_${unique()}`, type: 'item.updated', eventId: null, body: {}, audience: null },
    );

  it('when a try is claimed and finished, then both are inserts and the log shows the try with its outcome', async () => {
    const store = new DeliveryStore(db);
    const one = delivery();
    const first = databases.commands().length;
    expect(await store.claimAttempt(one, 1)).toBe(true);
    await store.finishAttempt(one, 1, { statusCode: 503, durationMs: 12, error: null });
    expect(await store.claimAttempt(one, 2)).toBe(true);
    await store.finishAttempt(one, 2, { statusCode: 200, durationMs: 8, error: null });

    const writes = databases.commands()
      .slice(first)
      .filter((c) => c.body[c.name] === ATTEMPTS_COLLECTION && c.name !== 'find');
    expect(writes.map((c) => c.name)).toEqual(['insert', 'insert', 'insert', 'insert']);

    const log = await store.attemptsOf([one._id]);
    expect(log.map((a) => [a.n, a.statusCode, a.durationMs, a.finishedAt instanceof Date])).toEqual([
      [1, 503, 12, true],
      [2, 200, 8, true],
    ]);
    expect((await store.findAttempt(one._id, 2))?.statusCode).toBe(200);
  });

  it('when a try is claimed and not finished, then it reads as unfinished; a second outcome of a try changes nothing', async () => {
    const store = new DeliveryStore(db);
    const one = delivery();
    await store.claimAttempt(one, 1);
    expect((await store.findAttempt(one._id, 1))?.finishedAt).toBeNull();
    expect((await store.attemptsOf([one._id])).map((a) => a.finishedAt)).toEqual([null]);

    await store.finishAttempt(one, 1, { statusCode: null, durationMs: null, error: 'interrupted' });
    await store.finishAttempt(one, 1, { statusCode: 200, durationMs: 5, error: null });
    const attempt = await store.findAttempt(one._id, 1);
    expect([attempt?.statusCode, attempt?.error]).toEqual([null, 'interrupted']);
    expect(await store.attemptsOf([one._id])).toHaveLength(1);
  });

  it('when eight workers record outcomes of one try at once, then one is stored and every reader sees that one', async () => {
    const store = new DeliveryStore(db);
    const one = delivery();
    await store.claimAttempt(one, 1);
    const statusCodes = [200, 201, 202, 203, 204, 500, 502, 503];
    await Promise.all(
      statusCodes.map((statusCode) => store.finishAttempt(one, 1, { statusCode, durationMs: 1, error: null })),
    );
    const stored = await db
      .collection(ATTEMPTS_COLLECTION)
      .find({ deliveryId: one._id, outcome: true })
      .toArray();
    expect(stored).toHaveLength(1);
    expect((await store.findAttempt(one._id, 1))?.statusCode).toBe(stored[0]!['statusCode']);
    expect((await store.attemptsOf([one._id])).map((a) => a.statusCode)).toEqual([stored[0]!['statusCode']]);
  });

  it('when a claim was finished in place (before the outcome inserts), then it reads as it was written', async () => {
    const store = new DeliveryStore(db);
    const one = delivery();
    await store.claimAttempt(one, 1);
    await db
      .collection(ATTEMPTS_COLLECTION)
      .updateOne(
        { _id: `${one._id}.1` as never },
        { $set: { statusCode: 204, durationMs: 3, error: null, finishedAt: new Date() } },
      );
    expect((await store.findAttempt(one._id, 1))?.statusCode).toBe(204);
    expect((await store.attemptsOf([one._id])).map((a) => a.statusCode)).toEqual([204]);
  });
});
