/**
 * Component test against the real FerretDB: the case-insensitive unique indexes of users (username, e-mail) come up
 * on a fresh database and on one written before the folded fields existed (they are filled in first), and refuse to
 * come up over two accounts that differ only by case (an operator resolves those first).
 */
import { ensureIndexes } from '@platform/mongo';
import { suiteDatabases } from '@platform/testing';
import { USERS_COLLECTION, UserRepository, userIndexes } from '../src/data-access/user-repository';

const created = new Date('2025-01-01T00:00:00Z');

const legacyUser = (id: number, username: string, email: string) => ({
  _id: id,
  username,
  email,
  fullName: null,
  isActive: true,
  role: 'member',
  createdAt: created,
  updatedAt: created,
});

describe('folded identity indexes', () => {
  const databases = suiteDatabases();
  const freshDb = () => databases.fresh('test_folded_');
  /** A fresh database holding `profiles` as stored before the folded fields existed. */
  const storedBefore = async (...profiles: ReturnType<typeof legacyUser>[]) => {
    const db = freshDb();
    await db.collection(USERS_COLLECTION).insertMany(profiles as never[]);
    return db;
  };

  it('when the database is fresh, then the indexes are built and case variants are refused by them', async () => {
    const db = freshDb();
    await ensureIndexes(db, userIndexes);
    const users = new UserRepository(db);
    await users.insert({ ...legacyUser(1, 'Admin', 'Admin@example.com'), role: 'admin' } as never);
    await expect(users.insert(legacyUser(2, 'ADMIN', 'other@example.com') as never)).rejects.toMatchObject({ code: 11000 });
    await expect(users.insert(legacyUser(3, 'other', 'ADMIN@example.com') as never)).rejects.toMatchObject({ code: 11000 });
    expect(await users.findByUsername('admin')).toMatchObject({ _id: 1, username: 'Admin' });
    expect(await users.existingField('aDMIN', null)).toBe('username');
    expect(await users.existingField(null, 'admin@EXAMPLE.com')).toBe('email');
  });

  it('when profiles predate the folded fields, then start-up fills them in and builds the indexes', async () => {
    const db = await storedBefore(legacyUser(1, 'Alice', 'Alice@example.com'), legacyUser(2, 'bob', 'bob@example.com'));
    await ensureIndexes(db, userIndexes);
    // A second start finds nothing left to do.
    await ensureIndexes(db, userIndexes);
    expect(await db.collection(USERS_COLLECTION).find({}, { sort: { _id: 1 } }).toArray()).toEqual([
      expect.objectContaining({ _id: 1, username: 'Alice', usernameFolded: 'alice', emailFolded: 'alice@example.com' }),
      expect.objectContaining({ _id: 2, username: 'bob', usernameFolded: 'bob', emailFolded: 'bob@example.com' }),
    ]);
    await expect(new UserRepository(db).insert(legacyUser(3, 'ALICE', 'new@example.com') as never)).rejects.toMatchObject({
      code: 11000,
    });
  });

  it('when two stored profiles differ only by case, then the index build fails (the service does not start on them)', async () => {
    const db = await storedBefore(legacyUser(1, 'carol', 'carol@example.com'), legacyUser(2, 'Carol', 'carol2@example.com'));
    await expect(ensureIndexes(db, userIndexes)).rejects.toThrow();
  });
});
