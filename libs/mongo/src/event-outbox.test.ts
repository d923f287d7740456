/**
 * The change log's crash guarantee (ADR 0023) on a real FerretDB that is SIGKILLed: writes recorded through the
 * outbox whose process died before publishing (the entry is left behind), some of whose data writes happened and
 * some never did, and FerretDB itself killed and restarted on the same database. The sweep afterwards publishes exactly
 * the events whose writes are in the data (a create, an update to its version, a delete, an update followed by a
 * deletion) and drops the others: nothing lost, nothing invented. A push and a sweep of one event publish one id. A
 * write that threw (refused by a unique index, a cascade that failed first) publishes nothing, also once a retry of it
 * passed and its check would hold.
 */
import { join } from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { makeTempDir } from '@platform/dev-stack';
import { startSuiteFerretDb, type SuiteFerretDb } from '@platform/testing';
import { buildEvent } from '@platform/events';
import { EventRelay, type PublishedEvent } from './event-relay';
import type { CommitCheck, PendingEvent } from './event-outbox';
import type { WriteEvent } from './event-outbox';
import { claimEntry, updateVersioned, deleteVersioned } from './version-claims';

jest.setTimeout(120_000);

const caller = { principal: { kind: 'user' as const, userId: 1 }, requestId: 'r' };
const pending = (
  type: 'item.created' | 'item.updated' | 'item.deleted',
  id: number,
  check: Omit<CommitCheck, 'collection' | 'subject'>,
): PendingEvent => ({
  event: buildEvent(
    caller,
    type,
    { type: 'item', id },
    { id },
    { scope: 'items:read', ownerId: 1, private: false },
  ),
  check: { collection: 'items', subject: `items:${id}`, ...check },
});

describe('event outbox across a FerretDB crash', () => {
  const dir = makeTempDir('outbox-crash-');
  let ferret: SuiteFerretDb | undefined;
  let client: MongoClient;
  let db: Db;
  const published: PublishedEvent[] = [];
  const transport = {
    publish: async (events: PublishedEvent[]) => {
      published.push(...events);
    },
    deletionOf: async () => null,
  };
  const logger = { info: () => undefined, warn: () => undefined };
  const start = async (port?: number) => {
    ferret = await startSuiteFerretDb({
      dataDir: join(dir.path, 'ferretdb'),
      ...(port && ferret ? { port, postgresUrl: ferret.postgresUrl } : {}),
    });
    client = await MongoClient.connect(ferret.url, { serverSelectionTimeoutMS: 5_000 });
    db = client.db('outbox_crash');
  };

  /** The relay of a process about to die: its pushes never return, so what it recorded stays behind. */
  const dyingRelay = () =>
    new EventRelay({
      db,
      logger,
      transport: { publish: () => new Promise(() => undefined), deletionOf: async () => null },
      sweepAfterMs: 60_000,
    });

  beforeAll(() => start());
  afterAll(async () => {
    await client?.close();
    await ferret?.process.stop();
    dir.remove();
  });

  it('when the process and FerretDB die with entries left behind, then the sweep publishes exactly the writes that happened', async () => {
    const items = db.collection<{ _id: number; name: string; version?: number }>('items');
    await items.insertMany([
      { _id: 2, name: 'updated', version: 0 },
      { _id: 3, name: 'deleted', version: 0 },
      { _id: 5, name: 'not updated', version: 0 },
      { _id: 6, name: 'not deleted', version: 0 },
      { _id: 7, name: 'updated, then deleted', version: 0 },
    ]);
    // A dying process: the relay never publishes (its push is dropped), so every entry stays in the outbox.
    const dead = dyingRelay();
    const outbox = dead.outbox;
    const happened = [
      pending('item.created', 1, { filter: { _id: 1 }, expect: 'present' }),
      pending('item.updated', 2, { filter: { _id: 2 }, expect: { versionAtLeast: 1 } }),
      pending('item.deleted', 3, { filter: { _id: 3 }, expect: 'absent', fromVersion: 0 }),
      pending('item.updated', 7, { filter: { _id: 7 }, expect: { versionAtLeast: 1 } }),
      pending('item.deleted', 7, { filter: { _id: 7 }, expect: 'absent', fromVersion: 1 }),
    ];
    const never = [
      pending('item.created', 4, { filter: { _id: 4 }, expect: 'present' }),
      pending('item.updated', 5, { filter: { _id: 5 }, expect: { versionAtLeast: 1 } }),
      pending('item.deleted', 6, { filter: { _id: 6 }, expect: 'absent', fromVersion: 0 }),
    ];
    // Recorded before their writes (as every write does), then the writes that happened, and no publish for any.
    for (const entry of [...happened, ...never]) {
      await outbox.entries.insertOne({
        _id: entry.event.id,
        event: entry.event,
        check: entry.check,
        recordedAt: new Date(Date.now() - 120_000),
      });
    }
    await items.insertOne({ _id: 1, name: 'created' });
    const target = { db, collection: items };
    await updateVersioned(target, 2, { name: 'updated!' });
    await deleteVersioned(target, 3);
    await updateVersioned(target, 7, { name: 'updated, then deleted!' });
    await deleteVersioned(target, 7);

    // FerretDB is SIGKILLed and comes back on the same database; the client reconnects.
    const port = ferret!.port;
    await client.close(true);
    await ferret!.process.stop('SIGKILL');
    await start(port);

    const relay = new EventRelay({ db, logger, transport, sweepAfterMs: 1_000 });
    await relay.sweep();
    expect(published.map((e) => e.id).sort()).toEqual(happened.map((p) => p.event.id).sort());
    await relay.close(); // drops what is due: every outbox entry
    expect(await relay.outbox.entries.countDocuments()).toBe(0);
  });

  it('when versioned writes carry their events in their claims and the process and FerretDB die, then the sweep publishes exactly the writes that happened, a takeover\'s write not as its predecessor\'s', async () => {
    published.length = 0;
    type Item = { _id: number; name: string; version?: number };
    const items = db.collection<Item>('items_claimed');
    await items.insertMany([
      { _id: 2, name: 'updated', version: 0 },
      { _id: 3, name: 'deleted', version: 0 },
      { _id: 5, name: 'holder died before writing', version: 0 },
      { _id: 6, name: 'holder died, a takeover wrote', version: 0 },
      { _id: 8, name: 'holder may still write', version: 0 },
    ]);
    // A dying process: its pushes never return, so every claim keeps the event it carries.
    const dead = dyingRelay();
    const recorded = (type: 'item.updated' | 'item.deleted'): WriteEvent<Item> => ({
      outbox: dead.outbox,
      of: (record) =>
        buildEvent(caller, type, { type: 'item', id: record._id }, { name: record.name }, { scope: 'items:read', ownerId: 1, private: false }),
    });
    const target = { db, collection: items };
    await updateVersioned(target, 2, { name: 'updated!' }, null, {}, { event: recorded('item.updated') });
    await deleteVersioned(target, 3, null, {}, undefined, { event: recorded('item.deleted') });
    // Nothing went to the outbox: the events ride in the claims.
    expect(await dead.outbox.entries.countDocuments()).toBe(0);
    expect(await dead.outbox.claims.countDocuments({ entry: { $exists: true } })).toBe(2);

    // Claims whose holders died (inserted as a claim does, with its event), one of them taken over by another writer.
    const long = new Date(Date.now() - 120_000);
    const claimOf = (id: number, attempt: number, settledBy: Date, type: 'item.updated') => {
      const entry = pending(type, id, { filter: { _id: id }, expect: { versionAtLeast: 1 } });
      return {
        _id: `items_claimed:${id}:v0${attempt === 0 ? '' : `~${attempt}`}`,
        resource: 'items_claimed',
        recordId: id,
        version: 0,
        attempt,
        claimedAt: long,
        settledBy,
        entry: JSON.stringify({
          event: entry.event,
          check: { ...entry.check, collection: 'items_claimed', subject: `items_claimed:${id}` },
        }),
        recordedAt: long,
      };
    };
    const diedBeforeWriting = claimOf(5, 0, long, 'item.updated');
    const takenOver = claimOf(6, 0, long, 'item.updated');
    const takeover = claimOf(6, 1, long, 'item.updated');
    const mayStillWrite = claimOf(8, 0, new Date(Date.now() + 60_000), 'item.updated');
    await dead.outbox.claims.insertMany([diedBeforeWriting, takenOver, takeover, mayStillWrite]);
    await items.updateOne({ _id: 6 }, { $set: { name: 'written by the takeover', version: 1 } });

    const port = ferret!.port;
    await client.close(true);
    await ferret!.process.stop('SIGKILL');
    await start(port);

    const relay = new EventRelay({ db, logger, transport, sweepAfterMs: 1_000 });
    const claims = relay.outbox.claims;
    // What the dying process recorded, as the sweep finds it on the restarted FerretDB.
    const happened = (await claims.find({ recordId: { $in: [2, 3] }, entry: { $exists: true } }).toArray()).map(
      (c) => claimEntry(c)!.event.id,
    );
    expect(happened).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await relay.sweep();
    expect(published.map((e) => e.id).sort()).toEqual([...happened, claimEntry(takeover)!.event.id].sort());
    // What never happened keeps only its claim, until its retention. What was published is dropped once due: a claim
    // CLAIM_DROP_AFTER_MS after the sweep saw its write committed (on its own clock), still ahead here, so the three
    // published keep their events meanwhile (a later sweep, of this relay or another, publishes the same ids, which
    // the events service records once). The claim whose holder may still write keeps its event for a later sweep.
    await relay.close();
    const left = await claims.find({ resource: 'items_claimed' }).sort({ _id: 1 }).toArray();
    expect(left.map((c) => [c._id, c.entry ? 'event' : 'no event', c.expiresAt ? 'expires' : 'kept'])).toEqual([
      ['items_claimed:2:v0', 'event', 'kept'],
      ['items_claimed:3:v0', 'event', 'kept'],
      ['items_claimed:5:v0', 'no event', 'expires'],
      ['items_claimed:6:v0', 'no event', 'expires'],
      ['items_claimed:6:v0~1', 'event', 'kept'],
      ['items_claimed:8:v0', 'event', 'kept'],
    ]);
    // This test's claims go, so the next tests' sweeps (in the same database) do not meet them.
    await claims.deleteMany({ resource: 'items_claimed' });
  });

  it('when a write is pushed and swept too, then both publish the same event id (the events service stores it once)', async () => {
    published.length = 0;
    const relay = new EventRelay({ db, logger, transport, sweepAfterMs: 1_000 });
    const items = db.collection<{ _id: number; version?: number }>('items');
    const entry = pending('item.created', 10, { filter: { _id: 10 }, expect: 'present' });
    await relay.outbox.around(entry, async () => {
      await items.insertOne({ _id: 10 });
      return true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(published.map((e) => e.id)).toEqual([entry.event.id]);
    // Published entries are dropped together, every 3 s.
    let left = 1;
    for (let wait = 0; wait < 60 && left > 0; wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = await relay.outbox.entries.countDocuments({ _id: entry.event.id });
    }
    expect(left).toBe(0);
    await relay.close();
  });

  it('when a write throws and a retry of it passes, then only the retry publishes its event (also after a sweep)', async () => {
    published.length = 0;
    // sweepAfterMs 0: the sweep below takes every entry left, as a later sweep of a live process would.
    const relay = new EventRelay({ db, logger, transport, sweepAfterMs: 0 });
    const items = db.collection<{ _id: number; name: string; version?: number }>('items_retried');
    await items.createIndex({ name: 1 }, { unique: true, name: 'name_1_unique' });
    await items.insertMany([
      { _id: 1, name: 'mine', version: 0 },
      { _id: 2, name: 'taken', version: 0 },
      { _id: 3, name: 'with children', version: 0 },
    ]);
    const target = { db, collection: items };
    const recorded = (type: 'item.updated' | 'item.deleted'): WriteEvent<{ _id: number; name: string }> => ({
      outbox: relay.outbox,
      of: (record) =>
        buildEvent(
          caller,
          type,
          { type: 'item', id: record._id },
          { name: record.name },
          { scope: 'items:read', ownerId: 1, private: false },
        ),
    });
    // An update the unique index refuses (a 409), then one that passes: the record is at version 1 either way.
    await expect(
      updateVersioned(target, 1, { name: 'taken' }, null, {}, { event: recorded('item.updated') }),
    ).rejects.toThrow();
    await updateVersioned(target, 1, { name: 'renamed' }, null, {}, { event: recorded('item.updated') });
    // A deletion whose cascade fails the first time (a 503 to retry), then passes: the record is gone either way.
    let cascadeDown = true;
    const cascade = async () => {
      if (!cascadeDown) return;
      cascadeDown = false;
      throw new Error('cascade unavailable');
    };
    await expect(
      deleteVersioned(target, 3, null, {}, cascade, { event: recorded('item.deleted') }),
    ).rejects.toThrow('cascade unavailable');
    await deleteVersioned(target, 3, null, {}, cascade, { event: recorded('item.deleted') });

    // The pushes (paced: the second may start up to PUSH_INTERVAL_MS after the first; later on a loaded machine).
    for (let wait = 0; wait < 50 && published.length < 2; wait += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    await relay.sweep();
    expect(published.map((e) => `${e.type} ${e.resource.id} ${String(e.data['name'])}`).sort()).toEqual([
      'item.deleted 3 with children',
      'item.updated 1 renamed',
    ]);
    // A push still in flight on a loaded machine drops its entry a moment later; no claim keeps an event.
    const carried = () => relay.outbox.claims.countDocuments({ resource: 'items_retried', entry: { $exists: true } });
    // (A claim goes CLAIM_DROP_AFTER_MS after its commit, in the next drop: up to 8 s.)
    for (let wait = 0; wait < 75 && (await relay.outbox.entries.countDocuments()) + (await carried()) > 0; wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await relay.outbox.entries.countDocuments()).toBe(0);
    expect(await carried()).toBe(0);
    await relay.close();
  });
});
