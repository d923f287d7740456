/** Against the real FerretDB: a batch lookup returns each existing id once, whatever the batch repeats or misses. */
import { suiteDatabases } from '@platform/testing';
import { findByIds } from './find-by-ids';

interface Thing {
  _id: number;
  name: string;
}

describe('findByIds on a real server', () => {
  const databases = suiteDatabases();

  it('when ids repeat, are missing or come in any order, then each existing document comes back exactly once', async () => {
    const db = databases.fresh('ids_');
    const things = db.collection<Thing>('things');
    await things.insertMany(Array.from({ length: 60 }, (_, i) => ({ _id: i + 1, name: `thing ${i + 1}` })));
    const found = await findByIds(things, [42, 7, 7, 999, 1, 42, 60]);
    expect(found.map((t) => t._id).sort((a, b) => a - b)).toEqual([1, 7, 42, 60]);
    expect(found.find((t) => t._id === 42)).toEqual({ _id: 42, name: 'thing 42' });
    expect(await findByIds(things, [])).toEqual([]);
    expect(await findByIds(things, [1000, 2000])).toEqual([]);
  });
});
