/** The credentials collection: one argon2id hash per user, keyed by user id, unique by username. */
import type { Collection, Db } from 'mongodb';
import type { IndexSpec } from '@platform/mongo';

export interface CredentialDocument {
  _id: number;
  username: string;
  passwordHash: string;
  createdAt: Date;
  updatedAt: Date;
}

export const CREDENTIALS_COLLECTION = 'credentials';

export const credentialIndexes: IndexSpec[] = [
  { collection: CREDENTIALS_COLLECTION, key: { username: 1 }, options: { unique: true, name: 'username_unique' } },
];

export class CredentialRepository {
  private readonly credentials: Collection<CredentialDocument>;

  constructor(db: Db) {
    this.credentials = db.collection<CredentialDocument>(CREDENTIALS_COLLECTION);
  }

  async insert(credential: CredentialDocument): Promise<void> {
    await this.credentials.insertOne(credential);
  }

  findByUsername(username: string): Promise<CredentialDocument | null> {
    return this.credentials.findOne({ username });
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
