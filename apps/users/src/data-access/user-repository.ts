/** The users collection: profiles keyed by integer id, unique username and e-mail, indexed for every filter and sort. */
import type { Collection, Db } from 'mongodb';
import { findByIds, nextSequenceValue, type IndexSpec } from '@platform/mongo';
import type { Role } from '@platform/auth';
import { LISTINGS, listIndexes, type MongoListPlan } from '@platform/listing';

export interface UserDocument {
  _id: number;
  username: string;
  email: string;
  fullName: string | null;
  isActive: boolean;
  role: Role;
  createdAt: Date;
  updatedAt: Date;
  /** Access tokens issued before this instant are refused (set by a password reset); absent: none revoked. */
  tokensValidAfter?: Date;
}

export const USERS_COLLECTION = 'users';
/** Every user id ever handed out (never deleted), so that no id is given twice. */

export const userIndexes: IndexSpec[] = [
  { collection: USERS_COLLECTION, key: { username: 1 }, options: { unique: true, name: 'username_unique' } },
  { collection: USERS_COLLECTION, key: { email: 1 }, options: { unique: true, name: 'email_unique' } },
  // Every filter and sort of the users listing, each with `_id` as the tie-breaker.
  ...listIndexes(LISTINGS.users, USERS_COLLECTION),
];

export type ProfileChanges = Partial<Pick<UserDocument, 'email' | 'fullName' | 'isActive' | 'role' | 'tokensValidAfter'>>;

export class UserRepository {
  private readonly users: Collection<UserDocument>;

  constructor(private readonly db: Db) {
    this.users = db.collection<UserDocument>(USERS_COLLECTION);
  }

  /** A user id no one ever had (see nextSequenceValue: claimed, never reused). */
  nextId(): Promise<number> {
    return nextSequenceValue(this.db, USERS_COLLECTION);
  }

  async insert(user: UserDocument): Promise<void> {
    await this.users.insertOne(user);
  }

  findById(id: number): Promise<UserDocument | null> {
    return this.users.findOne({ _id: id });
  }

  findByUsername(username: string): Promise<UserDocument | null> {
    return this.users.findOne({ username });
  }

  async findByIds(ids: readonly number[]): Promise<UserDocument[]> {
    return findByIds(this.users, ids);
  }

  /** Which unique field a username or e-mail already uses (FerretDB's duplicate-key errors do not say). */
  async existingField(
    username: string | null,
    email: string | null,
    exceptId?: number,
  ): Promise<'username' | 'email' | null> {
    const others = exceptId === undefined ? {} : { _id: { $ne: exceptId } };
    if (username !== null && (await this.users.findOne({ username, ...others }, { projection: { _id: 1 } })))
      return 'username';
    if (email !== null && (await this.users.findOne({ email, ...others }, { projection: { _id: 1 } })))
      return 'email';
    return null;
  }

  /** Applies the changes and returns the updated document, or null when there is no such user. */
  update(id: number, changes: ProfileChanges): Promise<UserDocument | null> {
    return this.users.findOneAndUpdate(
      { _id: id },
      { $set: { ...changes, updatedAt: new Date() } },
      { returnDocument: 'after' },
    );
  }

  list(plan: MongoListPlan): Promise<UserDocument[]> {
    return this.users.find(plan.filter).sort(plan.sort).skip(plan.skip).limit(plan.limit).toArray();
  }

  count(filter: Record<string, unknown>): Promise<number> {
    return this.users.countDocuments(filter);
  }

  async deleteById(id: number): Promise<boolean> {
    const result = await this.users.deleteOne({ _id: id });
    return result.deletedCount === 1;
  }
}
