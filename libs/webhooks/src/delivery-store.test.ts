/**
 * The attempt log on FerretDB, as the worker writes it: a try's claim and its outcome are two inserts, never an update
 * (on FerretDB v1 an update is a pass over the whole collection under the database's one writer, and the attempts
 * collection keeps every try), and the readers see each try with its outcome. The processes' commands are recorded on
 * the wire, so what is checked is what is sent.
 */
import type { Db } from 'mongodb';
import { suiteDatabases, unique } from '@platform/testing';
import {
  ATTEMPTS_COLLECTION,
  DELIVERIES_COLLECTION,
  DeliveryStore,
  newDelivery,
  SCHEDULE_COLLECTION,
  type DeliveryDocument,
} from './delivery-store';

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

  /** The commands sent to the deliveries and the schedule since `from`, as `<command> <collection>`. */
  const sent = (from: number) =>
    databases
      .commands()
      .slice(from)
      .map((c) => `${c.name} ${String(c.body[c.name])}`)
      .filter((c) => c.endsWith(DELIVERIES_COLLECTION) || c.endsWith(SCHEDULE_COLLECTION));

  it('when deliveries are made, retried, delivered and given up, then what is due is written on the schedule and only failure on the delivery', async () => {
    const store = new DeliveryStore(db);
    const [retried, failed] = [delivery(), delivery()];
    let from = databases.commands().length;
    expect(await store.createMany([retried, failed])).toHaveLength(2);
    // The schedule first: a crash in between leaves no delivery that nothing will try.
    expect(sent(from)).toEqual([`insert ${SCHEDULE_COLLECTION}`, `insert ${DELIVERIES_COLLECTION}`]);
    expect((await store.due(new Date(), 100)).filter((d) => [retried._id, failed._id].includes(d.deliveryId))).toHaveLength(2);

    // Try 1 failed: the next try is due later, on the schedule alone.
    const later = new Date(Date.now() + 60_000);
    from = databases.commands().length;
    await store.set(retried, { attempts: 1, nextAttemptAt: later, lastStatusCode: 503 });
    expect(sent(from)).toEqual([`update ${SCHEDULE_COLLECTION}`]);
    expect(await store.findById(retried._id)).toMatchObject({ state: 'pending', attempts: 1, nextAttemptAt: later });
    expect((await store.due(new Date(), 100)).map((d) => d.deliveryId)).not.toContain(retried._id);
    expect(await store.due(new Date(Date.now() + 120_000), 100)).toContainEqual({ deliveryId: retried._id, attempt: 2 });

    // Try 2 delivered: the schedule goes, the delivery is not written; its log says what happened.
    await store.claimAttempt(retried, 1);
    await store.finishAttempt(retried, 1, { statusCode: 503, durationMs: 4, error: null });
    await store.claimAttempt(retried, 2);
    await store.finishAttempt(retried, 2, { statusCode: 200, durationMs: 4, error: null });
    from = databases.commands().length;
    await store.set(retried, { state: 'delivered', attempts: 2, lastStatusCode: 200, reason: null });
    expect(sent(from)).toEqual([`delete ${SCHEDULE_COLLECTION}`]);
    expect((await store.findById(retried._id))?.state).toBe('delivered');

    // Given up: written on the delivery (the log's filter and the API read it), then the schedule goes.
    from = databases.commands().length;
    await store.set(failed, { state: 'failed', attempts: 1, reason: 'every attempt of the retry schedule failed' });
    expect(sent(from)).toEqual([`update ${DELIVERIES_COLLECTION}`, `delete ${SCHEDULE_COLLECTION}`]);

    const views = await store.views(
      (await store.deliveries.find({ _id: { $in: [retried._id, failed._id] } }).sort({ _id: 1 }).toArray()) as DeliveryDocument[],
    );
    const byId = new Map(views.map((v) => [v._id, v]));
    expect([byId.get(retried._id)?.state, byId.get(retried._id)?.attempts, byId.get(retried._id)?.attemptLog.length]).toEqual(['delivered', 2, 2]);
    expect([byId.get(failed._id)?.state, byId.get(failed._id)?.attempts]).toEqual(['failed', 1]);
    expect((await store.due(new Date(Date.now() + 120_000), 1_000)).map((d) => d.deliveryId)).not.toEqual(
      expect.arrayContaining([retried._id]),
    );

    // Redelivered: pending again, the next try after those made.
    await store.set(byId.get(retried._id)!, { state: 'pending', attempts: 2, nextAttemptAt: new Date(), reason: null });
    expect(await store.findById(retried._id)).toMatchObject({ state: 'pending', attempts: 2 });
    expect(await store.due(new Date(), 1_000)).toContainEqual({ deliveryId: retried._id, attempt: 3 });
  });

  it('when a fan-out is retried or died between its inserts, then nothing is made twice, and a schedule without its delivery goes once old', async () => {
    const store = new DeliveryStore(db);
    const one = delivery();
    expect(await store.createMany([one])).toHaveLength(1);
    expect(await store.createMany([one])).toHaveLength(0);
    expect(await store.schedule.countDocuments({ _id: one._id })).toBe(1);

    const orphan = delivery();
    await store.schedule.insertOne({ _id: orphan._id, webhookId: 7, attempts: 0, nextAttemptAt: new Date(), createdAt: new Date() });
    await store.dropOrphanSchedule(orphan._id);
    expect(await store.schedule.countDocuments({ _id: orphan._id })).toBe(1); // young: its fan-out may be retried
    await store.dropOrphanSchedule(orphan._id, Date.now() + 11 * 60_000);
    expect(await store.schedule.countDocuments({ _id: orphan._id })).toBe(0);
  });

  it('when a redelivery died between its schedule and its delivery, then the worker keeps that schedule while the redelivery may be on its way and drops it once old; one the release before left on a settled delivery goes at once', async () => {
    const store = new DeliveryStore(db);
    const [redelivered, raced, left] = [delivery(), delivery(), delivery()];
    await store.createMany([redelivered, raced, left]);
    for (const one of [redelivered, raced]) await store.set(one, { state: 'failed', attempts: 1, reason: 'gave up' });
    const settled = async (id: string) => (await store.findById(id))!;

    // The redelivery's schedule is written, then its process dies before the delivery is pending again.
    const dying = new DeliveryStore(db);
    jest.spyOn(dying.deliveries, 'updateOne').mockRejectedValueOnce(new Error('killed'));
    const failed = await settled(redelivered._id);
    await expect(dying.set(failed, { state: 'pending', attempts: 1, nextAttemptAt: new Date(), reason: null })).rejects.toThrow('killed');
    expect(failed.state).toBe('failed');
    await store.dropSettledSchedule(await settled(redelivered._id));
    expect(await store.schedule.countDocuments({ _id: redelivered._id })).toBe(1); // perhaps still on its way
    await store.dropSettledSchedule(await settled(redelivered._id), Date.now() + 11 * 60_000);
    expect(await store.schedule.countDocuments({ _id: redelivered._id })).toBe(0); // never answered: nothing is due
    expect((await store.findById(redelivered._id))?.state).toBe('failed');

    // A worker read the delivery failed, then a redelivery completed: the worker's drop leaves the new schedule.
    const read = await settled(raced._id);
    await store.set(read, { state: 'pending', attempts: 1, nextAttemptAt: new Date(), reason: null });
    await store.dropSettledSchedule(read);
    expect(await store.due(new Date(Date.now() + 1_000), 10_000)).toContainEqual({ deliveryId: raced._id, attempt: 2 });
    expect((await store.findById(raced._id))?.state).toBe('pending');

    // The release before settled a scheduled delivery on its document alone and left the schedule.
    await store.deliveries.updateOne({ _id: left._id }, { $set: { state: 'failed', updatedAt: new Date() } });
    await store.dropSettledSchedule(await settled(left._id));
    expect(await store.schedule.countDocuments({ _id: left._id })).toBe(0);
  });

  it('when a redelivery comes while a try is on its way, then the outcome of that try (delivered, given up or retried) leaves the redelivery standing', async () => {
    const store = new DeliveryStore(db);
    const [delivered, failed, retried, own] = [delivery(), delivery(), delivery(), delivery()];
    await store.createMany([delivered, failed, retried, own]);
    const later = new Date(Date.now() + 60_000);
    const dueSoon = async () => (await store.due(new Date(Date.now() + 1_000), 10_000)).map((d) => `${d.deliveryId}#${d.attempt}`);
    for (const [one, outcome] of [
      [delivered, { state: 'delivered', attempts: 1, lastStatusCode: 200, reason: null }],
      [failed, { state: 'failed', attempts: 1, lastStatusCode: 500, reason: 'every attempt of the retry schedule failed' }],
      [retried, { attempts: 1, nextAttemptAt: later, lastStatusCode: 503 }],
    ] as const) {
      // The worker reads the delivery and claims try 1; the owner redelivers (the log shows the claim); the try ends.
      const read = (await store.findById(one._id))!;
      expect(await store.claimAttempt(read, 1)).toBe(true);
      const view = (await store.viewById(one._id))!;
      await store.set(view, { state: 'pending', attempts: 1, nextAttemptAt: new Date(), reason: null });
      await store.finishAttempt(read, 1, { statusCode: outcome.lastStatusCode, durationMs: 3, error: null });
      await store.set(read, outcome);
      expect([one._id, (await store.findById(one._id))?.state]).toEqual([one._id, 'pending']);
      expect(await dueSoon()).toContain(`${one._id}#2`);
    }

    // The redelivery's own try settles it: it was read under the redelivery's schedule.
    const again = (await store.findById(delivered._id))!;
    expect(await store.claimAttempt(again, 2)).toBe(true);
    await store.set(again, { state: 'delivered', attempts: 2, lastStatusCode: 200, reason: null });
    expect((await store.findById(delivered._id))?.state).toBe('delivered');
    expect((await store.attemptsOf([delivered._id])).map((a) => a.n)).toEqual([1, 2]);

    // The last try is on its way; the owner redelivers, the redelivery's try is delivered first, then the last try
    // fails: the delivery stays delivered (and the worker is told, so it does not disable the endpoint).
    const slow = delivery();
    await store.createMany([slow]);
    const read = (await store.findById(slow._id))!;
    await store.claimAttempt(read, 1);
    await store.set((await store.viewById(slow._id))!, { state: 'pending', attempts: 1, nextAttemptAt: new Date(), reason: null });
    const redelivered = (await store.findById(slow._id))!;
    await store.claimAttempt(redelivered, 2);
    await store.set(redelivered, { state: 'delivered', attempts: 2, lastStatusCode: 200, reason: null });
    expect(await store.set(read, { state: 'failed', attempts: 1, reason: 'every attempt of the retry schedule failed' })).toBe(false);
    expect((await store.findById(slow._id))?.state).toBe('delivered');

    // Without a redelivery, nothing changes: a try's outcome settles the schedule it was read under.
    const plain = (await store.findById(own._id))!;
    expect(await store.set(plain, { state: 'failed', attempts: 1, reason: 'gave up' })).toBe(true);
    expect((await store.findById(own._id))?.state).toBe('failed');
    expect(await store.schedule.countDocuments({ _id: own._id })).toBe(0);
  });

  it('when deliveries of the release before are pending, then they are scheduled once, and the ones settled stay as they are', async () => {
    const store = new DeliveryStore(db);
    const { scheduled: _pending, ...earlier } = delivery();
    const { scheduled: _delivered, ...settled } = { ...delivery(), state: 'delivered' as const, attempts: 1 };
    await store.deliveries.insertMany([earlier, settled]);
    expect(await store.scheduleEarlierPending()).toBeGreaterThanOrEqual(1);
    expect(await store.due(new Date(Date.now() + 1_000), 10_000)).toContainEqual({ deliveryId: earlier._id, attempt: 1 });
    expect((await store.findById(settled._id))?.state).toBe('delivered');
    expect(await store.schedule.countDocuments({ _id: settled._id })).toBe(0);
    expect(await store.scheduleEarlierPending()).toBe(0);
  });
});
