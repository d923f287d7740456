/** Use cases on user profiles: registration (profile here, credential in auth, undone together) and reads. */
import { AppError } from '@platform/errors';
import { parseInput, UserCreate } from '@platform/contracts';
import { isDuplicateKeyError } from '@platform/mongo';
import type { Logger } from '@platform/logging';
import type { UserDocument, UserRepository } from '../data-access/user-repository';

/** The auth subgraph's side of registration; the users service calls it and compensates when it fails. */
export interface CredentialStore {
  createCredential(input: { userId: number; username: string; password: string }, requestId: string): Promise<void>;
}

export class UserService {
  constructor(
    private readonly users: UserRepository,
    private readonly credentials: CredentialStore,
    private readonly logger: Logger,
  ) {}

  async register(rawInput: unknown, requestId: string): Promise<UserDocument> {
    const input = parseInput(UserCreate, rawInput);
    const clash = await this.users.existingField(input.username, input.email);
    if (clash) throw conflict(clash);
    const now = new Date();
    const user: UserDocument = {
      _id: await this.users.nextId(),
      username: input.username,
      email: input.email,
      fullName: null,
      isActive: true,
      role: 'member',
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.users.insert(user);
    } catch (error) {
      if (isDuplicateKeyError(error)) {
        throw conflict((await this.users.existingField(input.username, input.email)) ?? 'username');
      }
      throw error;
    }
    try {
      await this.credentials.createCredential({ userId: user._id, username: user.username, password: input.password }, requestId);
    } catch (error) {
      // Compensation: no profile without a credential.
      await this.users.deleteById(user._id);
      this.logger.warn({ userId: user._id, err: error instanceof AppError ? error.code : 'error' }, 'registration undone');
      throw error;
    }
    return user;
  }

  async findVisible(id: number, includeInactive: boolean): Promise<UserDocument | null> {
    const user = await this.users.findById(id);
    if (!user || (!user.isActive && !includeInactive)) return null;
    return user;
  }
}

const conflict = (field: 'username' | 'email') =>
  new AppError('CONFLICT', `A user with this ${field} already exists`, { details: [{ field, message: 'already exists' }] });
