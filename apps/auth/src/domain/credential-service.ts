/**
 * Credentials: hashing on creation (internal callers only), password resets (self with the current password, or
 * an admin) and the purge of a deleted account's credential and refresh tokens (internal callers only).
 */
import {
  hashPassword,
  isAdmin,
  requireOwnerOrAdmin,
  requireScope,
  verifyPassword,
  type Principal,
  type RequestCaller,
} from '@platform/auth';
import { AppError, notFound, validationError } from '@platform/errors';
import { actorOf } from '@platform/events';
import { parseInput, ResetPassword } from '@platform/contracts';
import { isDuplicateKeyError } from '@platform/mongo';
import type { Logger } from '@platform/logging';
import type { CredentialRepository } from '../data-access/credential-repository';
import type { RefreshTokenRepository } from '../data-access/refresh-token-repository';
import type { AccountDirectory } from '../data-access/account-directory';
import type { ResetPasswordInput } from '../__generated__/resolvers-types';

export function requireService(principal: Principal | null): void {
  if (principal?.kind !== 'service' || !principal.scopes.includes('internal')) {
    throw new AppError('FORBIDDEN', 'Not enough permissions');
  }
}

export class CredentialService {
  constructor(
    private readonly credentials: CredentialRepository,
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly logger: Logger,
    private readonly accounts: AccountDirectory,
  ) {}

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

  /**
   * Sets a new password: users for themselves with the current password, an admin for anyone (the current
   * password may be omitted). Every refresh token of the user is revoked, and so is every access token issued until
   * now (the users subgraph records the instant; the gateway refuses older tokens within its status cache's lifetime).
   */
  async resetPassword(
    caller: RequestCaller,
    userId: number,
    args: ResetPasswordInput,
    expectedVersion?: number | null,
  ): Promise<void> {
    const principal = requireScope(caller.principal, 'users:write', caller.authError);
    requireOwnerOrAdmin(principal, userId);
    const input = parseInput(
      ResetPassword,
      Object.fromEntries(
        Object.entries({ current_password: args.currentPassword, new_password: args.newPassword }).filter(([, v]) => v !== undefined && v !== null),
      ),
    );
    const admin = isAdmin(principal);
    if (!admin && input.current_password === undefined) {
      throw validationError([{ field: 'current_password', message: 'is required' }]);
    }
    const credential = await this.credentials.findById(userId);
    if (!credential) throw notFound('User', userId);
    if (input.current_password !== undefined && !(await verifyPassword(input.current_password, credential.passwordHash))) {
      throw validationError([{ field: 'current_password', message: 'is incorrect' }]);
    }
    const newHash = await hashPassword(input.new_password);
    // Old access tokens first: if the users subgraph cannot record it (or the account is no longer at
    // `expectedVersion`: 412), nothing changes and the caller may retry. The revocation is a write to the account, so
    // its version check is the reset's, after the permission and current-password checks above.
    await this.accounts.revokeAccessTokens(userId, caller.requestId, expectedVersion, actorOf(caller));
    await this.credentials.updateHash(userId, newHash);
    await this.refreshTokens.revokeAllOfUser(userId, new Date());
    this.logger.info({ requestId: caller.requestId, userId, by: principal.userId }, 'password reset; tokens revoked');
  }

  /** Idempotent: deleting what is already gone succeeds. */
  async purge(userId: number): Promise<void> {
    await this.refreshTokens.deleteAllOfUser(userId);
    await this.credentials.deleteById(userId);
  }
}
