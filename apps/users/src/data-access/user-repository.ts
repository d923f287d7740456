/**
 * The users collection: profiles keyed by integer id, username and e-mail unique case-insensitively (a unique index
 * on each folded form, kept beside the value as given), indexed for every filter and sort.
 */
import type { Db } from 'mongodb';
import { foldEmail, foldUsername, users, type StoredDocument } from '@platform/contracts';
import {
  deleteVersioned,
  findByIds,
  insertWithinDeadline,
  listingIndexes,
  SequencedCollection,
  updateVersioned,
  type IndexSpec,
  type WriteEvent,
} from '@platform/mongo';
import { LISTINGS, type MongoListPlan } from '@platform/listing';

/**
 * A profile as the user's declaration stores it (with `tokensValidAfter`, set by a password reset, and `activeSince`,
 * set by an activation after a deactivation), and the account's
 * password version: how many times its access tokens were revoked (password resets); a token carries the count it was
 * issued at (`pwv`) and is refused once this moved past it. Absent: 0. Internal (no REST or GraphQL field), so it is
 * kept beside the declaration rather than in it.
 */
export type UserDocument = StoredDocument<typeof users> & { passwordVersion?: number };

/** What is stored besides the profile: the folded forms the unique indexes compare (foldUsername, foldEmail). */
interface StoredUser extends UserDocument {
  usernameFolded: string;
  emailFolded: string;
}

export const USERS_COLLECTION = users.collection;

/**
 * Profiles written before the folded fields existed get them before their unique indexes are built. Two such profiles
 * that differ only by case make the index build fail, and the service does not start: an operator resolves them first
 * (docs/decisions/0010-strict-input.md).
 */
async function addFoldedFields(db: Db): Promise<void> {
  const users = db.collection<StoredUser>(USERS_COLLECTION);
  const missing = users.find(
    { $or: [{ usernameFolded: { $exists: false } }, { emailFolded: { $exists: false } }] },
    { projection: { username: 1, email: 1 } },
  );
  for await (const user of missing) {
    await users.updateOne(
      { _id: user._id },
      { $set: { usernameFolded: foldUsername(user.username), emailFolded: foldEmail(user.email) } },
    );
  }
}

export const userIndexes: IndexSpec[] = [
  {
    collection: USERS_COLLECTION,
    key: { usernameFolded: 1 },
    options: { unique: true, name: 'username_folded_unique' },
    prepare: addFoldedFields,
  },
  {
    collection: USERS_COLLECTION,
    key: { emailFolded: 1 },
    options: { unique: true, name: 'email_folded_unique' },
    prepare: addFoldedFields,
  },
  // Every filter and sort of the users listing, each with `_id` as the tie-breaker.
  ...listingIndexes(USERS_COLLECTION, LISTINGS.users),
];

export type ProfileChanges = Partial<Pick<UserDocument, 'email' | 'fullName' | 'isActive' | 'role'>>;

export class UserRepository extends SequencedCollection<StoredUser> {
  constructor(db: Db) {
    super(db, USERS_COLLECTION);
  }

  async insert(user: UserDocument): Promise<void> {
    await insertWithinDeadline(this.collection, {
      ...user,
      usernameFolded: foldUsername(user.username),
      emailFolded: foldEmail(user.email),
    });
  }

  findById(id: number): Promise<UserDocument | null> {
    return this.collection.findOne({ _id: id });
  }

  /** The profile whose username equals this one case-insensitively. */
  findByUsername(username: string): Promise<UserDocument | null> {
    return this.collection.findOne({ usernameFolded: foldUsername(username) });
  }

  async findByIds(ids: readonly number[]): Promise<UserDocument[]> {
    return findByIds(this.collection, ids);
  }

  /**
   * Which unique field a username or e-mail already uses, compared case-insensitively (FerretDB's duplicate-key
   * errors do not say).
   */
  async existingField(
    username: string | null,
    email: string | null,
    exceptId?: number,
  ): Promise<'username' | 'email' | null> {
    const others = exceptId === undefined ? {} : { _id: { $ne: exceptId } };
    const taken = (filter: Partial<StoredUser>) =>
      this.collection.findOne({ ...filter, ...others }, { projection: { _id: 1 } });
    if (username !== null && (await taken({ usernameFolded: foldUsername(username) }))) return 'username';
    if (email !== null && (await taken({ emailFolded: foldEmail(email) }))) return 'email';
    return null;
  }

  /**
   * Applies the changes as the profile's next version (every change moves it, so an older ETag no longer matches) and
   * returns the document after them; null when there is no such user; PRECONDITION_FAILED when `expectedVersion` is
   * given and stale (see writeVersioned).
   */
  update(
    id: number,
    changes: ProfileChanges,
    expectedVersion?: number | null,
    event?: WriteEvent<UserDocument>,
    current?: UserDocument,
    currentReadAt?: number,
  ): Promise<UserDocument | null> {
    const folded = changes.email === undefined ? {} : { emailFolded: foldEmail(changes.email) };
    return updateVersioned(
      this.versioned,
      id,
      { ...changes, ...folded, updatedAt: new Date() },
      expectedVersion,
      {},
      // The profile as the caller read it (a StoredUser: read from this collection): the claim's starting point.
      { current: current as StoredUser | undefined, currentReadAt, event: event as WriteEvent<StoredUser> | undefined },
    );
  }

  /**
   * The account's state as the next version; activating an inactive account starts its active period now (read under
   * the version claim, so a concurrent activation of an already active account does not move it). Null: no such user.
   */
  setActive(
    id: number,
    isActive: boolean,
    expectedVersion?: number | null,
    event?: WriteEvent<UserDocument>,
  ): Promise<UserDocument | null> {
    return this.nextVersion(id, expectedVersion, event, (current, now) => ({
      isActive,
      ...(isActive && !current.isActive ? { activeSince: now } : {}),
    }));
  }

  /**
   * Every access token issued until now stops working: the password version moves on, computed under the version claim
   * (concurrent resets each count), with the instant for tokens that carry no version. Null: no such user.
   */
  revokeAccessTokens(
    id: number,
    expectedVersion?: number | null,
    event?: WriteEvent<UserDocument>,
  ): Promise<UserDocument | null> {
    return this.nextVersion(id, expectedVersion, event, (current, now) => ({
      passwordVersion: (current.passwordVersion ?? 0) + 1,
      tokensValidAfter: now,
    }));
  }

  /** The next version with changes computed from the current one under its version claim (at `now`, also `updatedAt`). */
  private nextVersion(
    id: number,
    expectedVersion: number | null | undefined,
    event: WriteEvent<UserDocument> | undefined,
    changesOf: (current: StoredUser, now: Date) => Partial<StoredUser>,
  ): Promise<UserDocument | null> {
    const now = new Date();
    return updateVersioned(
      this.versioned,
      id,
      (current) => ({ ...changesOf(current, now), updatedAt: now }),
      expectedVersion,
      {},
      { event: event as WriteEvent<StoredUser> | undefined },
    );
  }

  list(plan: MongoListPlan): Promise<UserDocument[]> {
    return this.collection.find(plan.filter).sort(plan.sort).skip(plan.skip).limit(plan.limit).toArray();
  }

  count(filter: Record<string, unknown>): Promise<number> {
    return this.collection.countDocuments(filter);
  }

  /** Removes a profile registered moments ago whose credential could not be created (no version check: no one saw it). */
  async deleteById(id: number): Promise<boolean> {
    const result = await this.collection.deleteOne({ _id: id });
    return result.deletedCount === 1;
  }

  /**
   * Deletes the profile (at `expectedVersion` when given) after `cascade`, which runs under the version claim: a stale
   * If-Match changes nothing anywhere, and no other write to the profile slips in between. False: no such user.
   */
  deleteVersioned(
    id: number,
    expectedVersion: number | null | undefined,
    cascade: (current: UserDocument) => Promise<void>,
    event?: WriteEvent<UserDocument>,
  ): Promise<boolean> {
    return deleteVersioned(this.versioned, id, expectedVersion, {}, cascade, {
      event: event as WriteEvent<StoredUser> | undefined,
    });
  }
}
