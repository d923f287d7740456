/** Credentials: hashing on creation; only internal callers (the users subgraph) may create them. */
import { hashPassword, type Principal } from '@platform/auth';
import { AppError } from '@platform/errors';
import { isDuplicateKeyError } from '@platform/mongo';
import type { CredentialRepository } from '../data-access/credential-repository';

export function requireService(principal: Principal | null): void {
  if (principal?.kind !== 'service' || !principal.scopes.includes('internal')) {
    throw new AppError('FORBIDDEN', 'Not enough permissions');
  }
}

export class CredentialService {
  constructor(private readonly credentials: CredentialRepository) {}

  async create(input: { userId: number; username: string; password: string }): Promise<void> {
    const now = new Date();
    try {
      await this.credentials.insert({
        _id: input.userId,
        username: input.username,
        passwordHash: await hashPassword(input.password),
        createdAt: now,
        updatedAt: now,
      });
    } catch (error) {
      if (isDuplicateKeyError(error)) throw new AppError('CONFLICT', 'A user with this username already exists');
      throw error;
    }
  }
}
