import { BSON } from 'mongodb';
import { isWholeCollection, serves, shapeKey, shapesOf, type IndexKey } from './index-coverage';
import { parseOpMsg, type RecordedCommand } from './mongo-wire-recorder';

const command = (name: string, body: Record<string, unknown>, db = 'api_items'): RecordedCommand => ({ name, db, body: { [name]: 'items', ...body, $db: db } });
const index = (name: string, key: Record<string, number>): IndexKey => ({ name, key: Object.entries(key) });
const ownerById = index('ownerId_1__id_1', { ownerId: 1, _id: 1 });

describe('query shapes and the indexes that serve them', () => {
  it('when a find filters by equality and sorts, then its shape names the equality, sort and range fields', () => {
    const [shape] = shapesOf(command('find', { filter: { ownerId: 5, priceCents: { $lt: 100 } }, sort: { _id: -1 } }));
    expect(shapeKey(shape!)).toBe('api_items.items find eq(ownerId) sort(-_id) range(priceCents)');
  });

  it('when an index starts with the equality fields and then the sort, then it serves the shape in either direction', () => {
    const [asc] = shapesOf(command('find', { filter: { ownerId: 5 }, sort: { _id: 1 } }));
    const [desc] = shapesOf(command('find', { filter: { ownerId: { $in: [5, 6] } }, sort: { _id: -1 } }));
    expect(serves(ownerById, asc!)).toBe(true);
    expect(serves(ownerById, desc!)).toBe(true);
  });

  it('when the sort does not follow the equality prefix, or mixes directions against the index, then the index does not serve it', () => {
    const [byPrice] = shapesOf(command('find', { filter: { ownerId: 5 }, sort: { priceCents: 1, _id: 1 } }));
    expect(serves(ownerById, byPrice!)).toBe(false);
    const [mixed] = shapesOf(command('find', { filter: {}, sort: { priceCents: -1, _id: 1 } }));
    expect(serves(index('p', { priceCents: 1, _id: 1 }), mixed!)).toBe(false);
    expect(serves(index('p', { priceCents: -1, _id: 1 }), mixed!)).toBe(true);
    const [noOwner] = shapesOf(command('count', { query: { name: 'x' } }));
    expect(serves(ownerById, noOwner!)).toBe(false);
  });

  it('when a sort field is pinned by equality, then the sort needs nothing more from the index', () => {
    const [shape] = shapesOf(command('find', { filter: { authorId: { $in: [1, 2] } }, sort: { authorId: 1, _id: 1 } }));
    expect(serves(index('a', { authorId: 1, _id: 1 }), shape!)).toBe(true);
  });

  it('when a unique index has every field pinned by equality, then it serves the shape (one document at most)', () => {
    const [shape] = shapesOf(command('findAndModify', { query: { _id: 4, version: 2 }, sort: { name: 1 } }));
    expect(serves(index('_id_', { _id: 1 }), shape!)).toBe(true);
    expect(serves(index('digest', { digest: 1 }), shapesOf(command('find', { filter: { digest: 'd', userId: 1 } }))[0]!)).toBe(false);
    expect(serves({ ...index('digest', { digest: 1 }), unique: true }, shapesOf(command('find', { filter: { digest: 'd', userId: 1 } }))[0]!)).toBe(true);
    expect(serves(index('_id_', { _id: 1 }), shapesOf(command('find', { filter: { _id: { $gt: 4 } } }))[0]!)).toBe(true);
  });

  it('when only a range filters, then an index must lead with that field', () => {
    const [shape] = shapesOf(command('delete', { deletes: [{ q: { expiresAt: { $lt: new Date() } }, limit: 0 }] }));
    expect(serves(index('e', { expiresAt: 1 }), shape!)).toBe(true);
    expect(serves(ownerById, shape!)).toBe(false);
  });

  it('when a filter has $or, then each branch is its own shape; an empty filter without sort reads the whole collection', () => {
    const shapes = shapesOf(command('find', { filter: { $or: [{ usernameFolded: 'a' }, { emailFolded: 'b' }] } }));
    expect(shapes.map(shapeKey)).toEqual(['api_items.items find eq(usernameFolded) sort() range()', 'api_items.items find eq(emailFolded) sort() range()']);
    const [all] = shapesOf(command('aggregate', { pipeline: [{ $match: {} }, { $group: { _id: 1, n: { $sum: 1 } } }] }));
    expect(isWholeCollection(all!)).toBe(true);
  });

  it('when updates and deletes carry several statements, then each statement is a shape; inserts carry none', () => {
    const shapes = shapesOf(command('update', { updates: [{ q: { _id: 1 }, u: { $set: { a: 1 } } }, { q: { ownerId: 2 }, u: { $set: { a: 1 } } }] }));
    expect(shapes.map((s) => s.equality)).toEqual([['_id'], ['ownerId']]);
    expect(shapesOf(command('insert', { documents: [{ _id: 1 }] }))).toEqual([]);
  });

  it('when an OP_MSG carries a document sequence, then the recorder puts it under its identifier', () => {
    const body = BSON.serialize({ update: 'items', $db: 'api_items' });
    const statement = BSON.serialize({ q: { _id: 3 }, u: { $set: { a: 1 } } });
    const identifier = Buffer.from('updates\0', 'utf8');
    const sequenceSize = Buffer.alloc(4);
    sequenceSize.writeInt32LE(4 + identifier.length + statement.length);
    const sections = Buffer.concat([Buffer.from([0]), body, Buffer.from([1]), sequenceSize, identifier, statement]);
    const header = Buffer.alloc(20);
    header.writeInt32LE(20 + sections.length, 0);
    header.writeInt32LE(2013, 12);
    const parsed = parseOpMsg(Buffer.concat([header, sections]));
    expect(parsed).toMatchObject({ name: 'update', db: 'api_items', body: { updates: [{ q: { _id: 3 } }] } });
  });
});
