/**
 * The credentials collection: one argon2id hash per user, keyed by user id, unique by username compared
 * case-insensitively (a unique index on the folded username, kept beside the username as registered).
 */
import type { Collection, Db } from 'mongodb';
import { foldUsername } from '@platform/contracts';
import type { IndexSpec } from '@platform/mongo';

export interface CredentialDocument {
  _id: number;
  username: string;
  passwordHash: string;
  createdAt: Date;
  updatedAt: Date;
}

/** What is stored besides the credential: the folded username that login looks up and the unique index compares. */
interface StoredCredential extends CredentialDocument {
  usernameFolded: string;
}

export const CREDENTIALS_COLLECTION = 'credentials';

/** Credentials written before the folded username existed get it before its unique index is built (idempotent). */
async function addFoldedUsernames(db: Db): Promise<void> {
  const credentials = db.collection<StoredCredential>(CREDENTIALS_COLLECTION);
  const missing = credentials.find({ usernameFolded: { $exists: false } }, { projection: { username: 1 } });
  for await (const credential of missing) {
    await credentials.updateOne(
      { _id: credential._id },
      { $set: { usernameFolded: foldUsername(credential.username) } },
    );
  }
}

export const credentialIndexes: IndexSpec[] = [
  {
    collection: CREDENTIALS_COLLECTION,
    key: { usernameFolded: 1 },
    options: { unique: true, name: 'username_folded_unique' },
    prepare: addFoldedUsernames,
  },
];

export class CredentialRepository {
  private readonly credentials: Collection<StoredCredential>;

  constructor(db: Db) {
    this.credentials = db.collection<StoredCredential>(CREDENTIALS_COLLECTION);
  }

  async insert(credential: CredentialDocument): Promise<void> {
    await this.credentials.insertOne({ ...credential, usernameFolded: foldUsername(credential.username) });
  }

  /** Login: the username is matched case-insensitively, as registration compares it. */
  findByUsername(username: string): Promise<CredentialDocument | null> {
    return this.credentials.findOne({ usernameFolded: foldUsername(username) });
  }

  findById(userId: number): Promise<CredentialDocument | null> {
    return this.credentials.findOne({ _id: userId });
  }

  async updateHash(userId: number, passwordHash: string): Promise<boolean> {
    const result = await this.credentials.updateOne({ _id: userId }, { $set: { passwordHash, updatedAt: new Date() } });
    return result.matchedCount === 1;
  }

  async deleteById(userId: number): Promise<void> {
    await this.credentials.deleteOne({ _id: userId });
  }
}
