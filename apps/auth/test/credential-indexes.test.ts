/**
 * Component test against the real FerretDB: credentials are unique by username case-insensitively and found by it so
 * at login, also for credentials stored before the folded username existed (start-up fills it in first).
 */
import type { Db } from 'mongodb';
import { ensureIndexes } from '@platform/mongo';
import { suiteDatabases } from '@platform/testing';
import { CREDENTIALS_COLLECTION, CredentialRepository, credentialIndexes } from '../src/data-access/credential-repository';

const created = new Date('2025-01-01T00:00:00Z');
const credential = (id: number, username: string) => ({ _id: id, username, passwordHash: 'x', createdAt: created, updatedAt: created });

describe('credential indexes', () => {
  const databases = suiteDatabases();
  let db: Db;

  beforeAll(() => {
    db = databases.fresh('test_credentials_');
  });

  it('when credentials predate the folded username, then start-up fills it in, and login lookups and uniqueness ignore case', async () => {
    await db.collection(CREDENTIALS_COLLECTION).insertMany([credential(1, 'Alice'), credential(2, 'bob')] as never[]);
    await ensureIndexes(db, credentialIndexes);
    await ensureIndexes(db, credentialIndexes);
    expect(await db.collection(CREDENTIALS_COLLECTION).find({}, { sort: { _id: 1 } }).toArray()).toEqual([
      expect.objectContaining({ _id: 1, username: 'Alice', usernameFolded: 'alice' }),
      expect.objectContaining({ _id: 2, username: 'bob', usernameFolded: 'bob' }),
    ]);
    const credentials = new CredentialRepository(db);
    expect(await credentials.findByUsername('ALICE')).toMatchObject({ _id: 1, username: 'Alice' });
    expect(await credentials.findByUsername('Bob')).toMatchObject({ _id: 2 });
    await expect(credentials.insert(credential(3, 'BOB'))).rejects.toMatchObject({ code: 11000 });
  });
});
