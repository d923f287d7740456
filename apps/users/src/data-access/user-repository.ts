/** The users collection: profiles keyed by integer id, unique username and e-mail. */
import type { Collection, Db } from 'mongodb';
import { nextSequenceValue, type IndexSpec } from '@platform/mongo';
import type { Role } from '@platform/auth';

export interface UserDocument {
  _id: number;
  username: string;
  email: string;
  fullName: string | null;
  isActive: boolean;
  role: Role;
  createdAt: Date;
  updatedAt: Date;
}

export const USERS_COLLECTION = 'users';

export const userIndexes: IndexSpec[] = [
  { collection: USERS_COLLECTION, key: { username: 1 }, options: { unique: true, name: 'username_unique' } },
  { collection: USERS_COLLECTION, key: { email: 1 }, options: { unique: true, name: 'email_unique' } },
];

export class UserRepository {
  private readonly users: Collection<UserDocument>;

  constructor(private readonly db: Db) {
    this.users = db.collection<UserDocument>(USERS_COLLECTION);
  }

  nextId(): Promise<number> {
    return nextSequenceValue(this.db, USERS_COLLECTION);
  }

  async insert(user: UserDocument): Promise<void> {
    await this.users.insertOne(user);
  }

  findById(id: number): Promise<UserDocument | null> {
    return this.users.findOne({ _id: id });
  }

  async findByIds(ids: readonly number[]): Promise<UserDocument[]> {
    return this.users.find({ _id: { $in: [...ids] } }).toArray();
  }

  async existingField(username: string, email: string): Promise<'username' | 'email' | null> {
    if (await this.users.findOne({ username }, { projection: { _id: 1 } })) return 'username';
    if (await this.users.findOne({ email }, { projection: { _id: 1 } })) return 'email';
    return null;
  }

  async deleteById(id: number): Promise<boolean> {
    const result = await this.users.deleteOne({ _id: id });
    return result.deletedCount === 1;
  }
}
