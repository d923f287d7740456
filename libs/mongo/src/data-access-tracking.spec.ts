import type { Db } from 'mongodb';
import { ObjectId } from 'mongodb';
import { idsOfFilter, trackDataAccess, type DataAccessHooks } from './data-access-tracking';

/** A collection's methods as the driver's have them (sync cursors, async writes), recording nothing themselves. */
function fakeCollection(name: string) {
  const cursor = { toArray: async () => [] };
  return {
    collectionName: name,
    find: () => cursor,
    findOne: async () => null,
    countDocuments: async () => 0,
    distinct: async () => [],
    estimatedDocumentCount: async () => 0,
    aggregate: () => cursor,
    insertOne: async (document: { _id?: unknown }) => {
      document._id ??= 41;
      return { insertedId: document._id };
    },
    insertMany: async () => ({}),
    updateOne: async () => ({}),
    updateMany: async () => ({}),
    replaceOne: async () => ({}),
    deleteOne: async () => ({}),
    deleteMany: async () => ({}),
    findOneAndUpdate: async () => null,
    findOneAndReplace: async () => null,
    findOneAndDelete: async () => null,
    bulkWrite: async () => ({}),
  };
}

function tracked(bookkeeping: string[] = []) {
  const events: string[] = [];
  const hooks: DataAccessHooks = {
    read: (collection, ids) => void events.push(`read ${collection} ${ids ? ids.join(',') : '*'}`),
    wrote: (collection, ids) => void events.push(`wrote ${collection} ${ids ? ids.join(',') : '*'}`),
    opaque: (effect) => void events.push(`opaque ${effect}`),
  };
  const db = {
    databaseName: 'db',
    collection: (name: string) => fakeCollection(name),
    command: async () => ({ ok: 1 }),
  } as unknown as Db;
  return { db: trackDataAccess(db, hooks, { bookkeeping: new Set(bookkeeping) }), events };
}

describe('idsOfFilter', () => {
  it('when a filter names documents by _id (equality, $eq, $in, or inside a top-level $and), then it gives their ids', () => {
    expect(idsOfFilter({ _id: 7 })).toEqual(['7']);
    expect(idsOfFilter({ _id: 'user:42', claimedAt: { $lt: new Date() } })).toEqual(['user:42']);
    expect(idsOfFilter({ _id: { $eq: 3 } })).toEqual(['3']);
    expect(idsOfFilter({ _id: { $in: [1, 2] } })).toEqual(['1', '2']);
    expect(idsOfFilter({ $and: [{ version: 2 }, { _id: 9 }] })).toEqual(['9']);
    const objectId = new ObjectId();
    expect(idsOfFilter({ _id: objectId })).toEqual([objectId.toHexString()]);
  });

  it('when a filter can match any document (another field, a range, a regex, too many ids, none), then undefined', () => {
    expect(idsOfFilter({ ownerId: 3 })).toBeUndefined();
    expect(idsOfFilter({ _id: { $gt: 3 } })).toBeUndefined();
    expect(idsOfFilter({ _id: /^user:/ })).toBeUndefined();
    expect(idsOfFilter({ _id: { $in: Array.from({ length: 101 }, (_, i) => i) } })).toBeUndefined();
    expect(idsOfFilter({ $or: [{ _id: 1 }, { _id: 2 }] })).toBeUndefined();
    expect(idsOfFilter(undefined)).toBeUndefined();
  });
});

describe('trackDataAccess', () => {
  it('when reads run, then each reports its documents or its whole collection, as called (before the cursor runs)', async () => {
    const { db, events } = tracked();
    const users = db.collection<{ _id: number; role?: string; postId?: number }>('users');
    await users.findOne({ _id: 5 });
    users.find({ role: 'admin' });
    await users.countDocuments({});
    await users.distinct('role', { _id: { $in: [1, 2] } });
    users.aggregate([{ $match: { _id: 8 } }, { $project: { role: 1 } }]);
    users.aggregate([{ $match: { postId: { $in: [1] } } }, { $group: { _id: '$postId' } }]);
    expect(events).toEqual([
      'read users 5',
      'read users *',
      'read users *',
      'read users 1,2',
      'read users 8',
      'read users *',
    ]);
  });

  it('when writes run, then each reports its documents (an insert its new _id) once it settled, or everything of the collection', async () => {
    const { db, events } = tracked();
    const items = db.collection<{ _id?: number; name?: string }>('items');
    const inserting = items.insertOne({ name: 'lamp' });
    expect(events).toEqual([]);
    await inserting;
    await items.updateOne({ _id: 3 }, { $set: { name: 'x' } });
    await items.findOneAndUpdate({ _id: 4, version: 1 }, { $set: { name: 'y' } });
    await items.deleteMany({ ownerId: 9 });
    await items.deleteOne({ _id: { $in: [6, 7] } });
    expect(events).toEqual(['wrote items 41', 'wrote items 3', 'wrote items 4', 'wrote items *', 'wrote items 6,7']);
  });

  it('when a call cannot be named (bulkWrite, a pipeline reaching another collection, a database command), then it reads and writes everything', async () => {
    const { db, events } = tracked();
    const posts = db.collection<{ _id: number }>('posts');
    await posts.bulkWrite([]);
    posts.aggregate([{ $match: {} }, { $lookup: { from: 'likes', localField: '_id', foreignField: 'postId', as: 'likes' } }]);
    await db.command({ ping: 1 });
    expect(events).toEqual(['opaque read', 'opaque write', 'opaque read', 'opaque write', 'opaque read', 'opaque write']);
    // Data properties pass through untouched.
    expect(db.databaseName).toBe('db');
    expect(posts.collectionName).toBe('posts');
  });

  it('when a bookkeeping collection (version and id claims) is used, then its writes are not reported and a read of it is opaque', async () => {
    const { db, events } = tracked(['version_claims']);
    const claims = db.collection<{ _id: string }>('version_claims');
    await claims.insertOne({ _id: 'items:1:v0' });
    await claims.deleteOne({ _id: 'items:1:v0' });
    await claims.findOne({ _id: 'items:1:v0' });
    expect(events).toEqual(['opaque read']);
  });
});
