/**
 * Use cases on user profiles: registration (profile here, credential in auth, undone together), reads, updates,
 * activation and deletion (cascading to the other services first), with scopes and ownership checked here.
 */
import { AppError, notFound } from '@platform/errors';
import { normalizeEmail, parseEntityId, storedRepresentation, users } from '@platform/contracts';
import { isAdmin, requireOwnerOrAdmin, requireScope, type Principal, type RequestCaller } from '@platform/auth';
import { isDuplicateKeyError, type EventOutbox, type WriteEvent } from '@platform/mongo';
import { buildEvent, type EventCaller, type EventType } from '@platform/events';
import { parseWrite } from '@platform/graphql-server';
import type { Logger } from '@platform/logging';
import type { ProfileChanges, UserDocument, UserRepository } from '../data-access/user-repository';

/** The auth subgraph's side of registration; the users service calls it and compensates when it fails. */
export interface CredentialStore {
  createCredential(input: { userId: number; username: string; password: string }, requestId: string): Promise<void>;
}

/** Removes what other services hold for a user (credentials, tokens, keys, items, posts); idempotent, may fail. */
export interface AccountPurger {
  purge(userId: number, requestId: string): Promise<void>;
}


/** An account's REST representation (what GET /users/{id} answers), carried by its events. */
export const userRepresentation = storedRepresentation(users);

export class UserService {
  constructor(
    private readonly users: UserRepository,
    private readonly credentials: CredentialStore,
    private readonly purger: AccountPurger,
    private readonly logger: Logger,
    private readonly outbox?: EventOutbox,
  ) {}

  /**
   * The event of a write to an account (ADR 0023): readable by every `users:read` holder, like the account itself; a
   * password reset only by its owner (and admins).
   */
  private accountEvent(caller: EventCaller, type: EventType): WriteEvent<UserDocument> | undefined {
    const outbox = this.outbox;
    if (!outbox) return undefined;
    const audience = (user: UserDocument) => ({
      scope: 'users:read' as const,
      ownerId: user._id,
      private: type === 'user.password_reset',
    });
    return {
      outbox,
      of: (user) => buildEvent(caller, type, { type: 'user', id: user._id }, userRepresentation(user), audience(user)),
    };
  }

  /**
   * Profile here, credential in auth, undone together: user.created is published only once both exist (an undone
   * registration publishes nothing), the new account its actor.
   */
  async register(rawInput: unknown, requestId: string): Promise<UserDocument> {
    const input = parseWrite(users, 'create', rawInput).input as { username: string; email: string; password: string };
    const id = await this.users.nextId();
    const register = async () => {
      const user = await this.insertProfile({ username: input.username, email: input.email, role: 'member' }, id);
      try {
        await this.credentials.createCredential({ userId: user._id, username: user.username, password: input.password }, requestId);
      } catch (error) {
        // Compensation: no profile without a credential.
        await this.users.deleteById(user._id);
        this.logger.warn({ requestId, userId: user._id, err: error instanceof AppError ? error.code : 'error' }, 'registration undone');
        throw error;
      }
      return user;
    };
    const event = this.accountEvent({ principal: { kind: 'user', userId: id }, requestId }, 'user.created');
    if (!event) return register();
    const now = new Date();
    const email = normalizeEmail(input.email);
    const expected: UserDocument = { _id: id, username: input.username, email, fullName: null, isActive: true, role: 'member', createdAt: now, updatedAt: now };
    const check = { collection: 'users', filter: { _id: id }, expect: 'present' as const, subject: `users:${id}` };
    return event.outbox.around({ event: event.of(expected), check }, register);
  }

  /**
   * The bootstrap admin (BOOTSTRAP_ADMIN_*): created once, never demoted or re-created; an existing non-admin of that
   * name (compared case-insensitively, as every username) is refused.
   */
  async ensureBootstrapAdmin(username: string, email: string, password: string): Promise<UserDocument> {
    let user = await this.users.findByUsername(username);
    if (user && user.role !== 'admin') {
      throw new Error(`bootstrap admin: "${username}" already exists and is not an admin; refusing to promote it`);
    }
    user ??= await this.insertProfile({ username, email, role: 'admin' });
    try {
      await this.credentials.createCredential({ userId: user._id, username: user.username, password }, 'bootstrap');
    } catch (error) {
      // The credential of an earlier start stays as it is (its password may have been changed since).
      if (!(error instanceof AppError && error.code === 'CONFLICT')) throw error;
    }
    return user;
  }

  me(caller: RequestCaller): Promise<UserDocument | null> {
    const principal = requireScope(caller.principal, 'users:read', caller.authError);
    if (principal.userId === null) return Promise.resolve(null);
    return this.users.findById(principal.userId);
  }

  async findVisible(caller: RequestCaller, id: number, includeInactive: boolean): Promise<UserDocument | null> {
    requireScope(caller.principal, 'users:read', caller.authError);
    const user = await this.users.findById(id);
    if (!user || (!user.isActive && !includeInactive)) return null;
    return user;
  }

  /** For the auth subgraph only (service principal): role and state are read here at every login and refresh. */
  accountStatus(caller: RequestCaller, id: number): Promise<UserDocument | null> {
    requireService(caller.principal);
    return this.users.findById(id);
  }

  /**
   * For the auth subgraph only (a password reset): every access token issued before now stops working. Deletion and
   * deactivation need no such mark: the gateway refuses the tokens of a missing or inactive account. The reset's event
   * names who asked for it (`actor`, the auth subgraph's caller), not the auth subgraph.
   */
  async revokeAccessTokens(
    caller: RequestCaller,
    id: number,
    expectedVersion?: number | null,
    actor?: { type?: string | null; id?: string | null },
  ): Promise<boolean> {
    requireService(caller.principal);
    const event = this.accountEvent({ principal: resetActor(actor), requestId: caller.requestId }, 'user.password_reset');
    const updated = await this.users.revokeAccessTokens(id, expectedVersion, event);
    if (updated) this.logger.info({ requestId: caller.requestId, userId: id }, 'access tokens revoked');
    return updated !== null;
  }

  requireReader(caller: RequestCaller): Principal {
    return requireScope(caller.principal, 'users:read', caller.authError);
  }

  /** PATCH (`update`) or PUT (`replace`) of the profile's own fields, as the user's declaration writes them. */
  async write(
    operation: 'update' | 'replace',
    caller: RequestCaller,
    id: number,
    rawInput: unknown,
    expectedVersion?: number | null,
  ): Promise<UserDocument> {
    const { changes } = parseWrite(users, operation, rawInput);
    return this.writeProfile(caller, id, changes as ProfileChanges, expectedVersion);
  }

  async setActive(
    caller: RequestCaller,
    id: number,
    isActive: boolean,
    expectedVersion?: number | null,
  ): Promise<UserDocument> {
    const principal = requireScope(caller.principal, 'users:write', caller.authError);
    // Only an admin changes account state: a deactivated member must not re-activate itself.
    if (!isAdmin(principal)) throw new AppError('FORBIDDEN', 'Not enough permissions: only an admin may change account state');
    const event = this.accountEvent(caller, isActive ? 'user.activated' : 'user.deactivated');
    const updated = await this.users.setActive(id, isActive, expectedVersion, event);
    if (!updated) throw notFound('User', id);
    this.logger.info({ requestId: caller.requestId, userId: id, isActive, by: principal.userId }, 'account state changed');
    return updated;
  }

  /**
   * Deletes the other services' data first (each call idempotent), then the profile; a failed call leaves a retryable
   * 503. The version claim is taken before the cascade, so a stale `expectedVersion` (412) changes nothing anywhere.
   */
  async delete(caller: RequestCaller, id: number, expectedVersion?: number | null): Promise<boolean> {
    const principal = requireScope(caller.principal, 'users:write', caller.authError);
    requireOwnerOrAdmin(principal, id);
    const event = this.accountEvent(caller, 'user.deleted');
    const deleted = await this.users.deleteVersioned(id, expectedVersion, async () => {
      try {
        await this.purger.purge(id, caller.requestId);
      } catch (error) {
        this.logger.warn({ requestId: caller.requestId, userId: id, err: error instanceof AppError ? error.code : 'error' }, 'account purge failed');
        throw new AppError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable; retry the deletion', {
          cause: error,
          headers: { 'retry-after': '5' },
        });
      }
    }, event);
    if (!deleted) throw notFound('User', id);
    this.logger.info({ requestId: caller.requestId, userId: id, by: principal.userId }, 'account deleted');
    return true;
  }

  private async writeProfile(
    caller: RequestCaller,
    id: number,
    changes: ProfileChanges,
    expectedVersion?: number | null,
  ): Promise<UserDocument> {
    const principal = requireScope(caller.principal, 'users:write', caller.authError);
    requireOwnerOrAdmin(principal, id);
    const readAt = Date.now();
    const current = await this.users.findById(id);
    // A member's own deactivated record reads as absent (as in GET); an admin sees every record.
    if (!current || (!current.isActive && !isAdmin(principal))) throw notFound('User', id);
    // The unique index on the folded e-mail decides a clash (no read before it: on FerretDB v1 that read scans the
    // collection, and twenty concurrent changes queued behind their scans past the gateway's deadline).
    try {
      // The profile just read is the claim's starting point: one read of it per write.
      const updated = await this.users.update(
        id,
        changes,
        expectedVersion,
        this.accountEvent(caller, 'user.updated'),
        current,
        readAt,
      );
      if (!updated) throw notFound('User', id);
      return updated;
    } catch (error) {
      if (isDuplicateKeyError(error)) throw conflict('email');
      throw error;
    }
  }

  /**
   * The unique indexes on the folded username and e-mail decide a clash at insert, case variants included (no read
   * before it: on FerretDB v1 such a read scans the collection); only a refused insert asks which field it was, since
   * FerretDB's duplicate-key errors do not say. A refused registration has claimed an id, which stays unused.
   */
  private async insertProfile(input: { username: string; email: string; role: UserDocument['role'] }, id?: number): Promise<UserDocument> {
    const now = new Date();
    const user: UserDocument = {
      _id: id ?? (await this.users.nextId()),
      username: input.username,
      email: normalizeEmail(input.email),
      fullName: null,
      isActive: true,
      role: input.role,
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
    return user;
  }
}

/** Who asked the auth subgraph for a password reset, as an event's caller; null (the system) when it did not say. */
function resetActor(actor: { type?: string | null; id?: string | null } | undefined): EventCaller['principal'] {
  if (!actor?.id || (actor.type !== 'user' && actor.type !== 'api_key')) return null;
  return { kind: actor.type === 'api_key' ? 'api-key' : 'user', userId: parseEntityId(actor.id, 'actorId') };
}

export function requireService(principal: Principal | null): void {
  if (principal?.kind !== 'service' || !principal.scopes.includes('internal')) {
    throw new AppError('FORBIDDEN', 'Not enough permissions');
  }
}

const conflict = (field: 'username' | 'email') =>
  new AppError('CONFLICT', `A user with this ${field} already exists`, { details: [{ field, message: 'already exists' }] });

