/**
 * API keys: created by a logged-in user with scopes no wider than its own, shown once and stored as a SHA-256 digest,
 * listed and revoked by their owner only; verified for whatever executes supergraph operations (service principals only), which exchanges a
 * valid key for a short-lived JWT so that the subgraphs only ever verify JWTs.
 */
import {
  READ_SCOPES,
  digestSecret,
  digestsEqual,
  generateSecretToken,
  isScope,
  requirePrincipal,
  scopesForRole,
  type Principal,
  type RequestCaller,
  type Role,
} from '@platform/auth';
import { apiKeys, API_KEYS_PER_USER_MAX, storedRepresentation } from '@platform/contracts';
import { parseWrite } from '@platform/graphql-server';
import { AppError, notFound, validationError } from '@platform/errors';
import type { Logger } from '@platform/logging';
import { buildEvent, type EventType } from '@platform/events';
import { deletedAccount, type DeletionMarks, type EventOutbox, type WriteEvent } from '@platform/mongo';
import type { ApiKeyDocument, ApiKeyRepository } from '../data-access/api-key-repository';
import { requireService } from './credential-service';

/** The account behind a key, as the users subgraph reports it now (role and state live there only). */
export interface ApiKeyOwner {
  username: string;
  role: Role;
  isActive: boolean;
}

/** Structurally the auth subgraph's AccountDirectory (data-access/account-directory.ts), reduced to what keys need. */
export interface ApiKeyOwners {
  /** null when the account no longer exists. */
  status(userId: number, requestId: string): Promise<ApiKeyOwner | null>;
}

/** Who a valid key acts for: the gateway signs these claims into the JWT it forwards. */
export interface ApiKeyPrincipal {
  keyId: number | null;
  userId: number | null;
  username: string;
  role: Role;
  scopes: string[];
}

export type StoredApiKey = Omit<ApiKeyDocument, 'digest'>;

export interface CreatedApiKey {
  apiKey: StoredApiKey;
  /** The secret, returned to the creator once and never stored. */
  key: string;
}

/** 32 random bytes (256 bits) after the `ak_` prefix. */
const KEY_BYTES = 32;
/** `ak_` and six characters (36 bits): enough to tell keys apart, far too little to guess the rest. */
const PREFIX_LENGTH = 9;
/** Longer than any key we issue (or a sane bootstrap key): refused before hashing. */
const MAX_KEY_LENGTH = 512;
const LAST_USED_GRANULARITY_MS = 60_000;
export const BOOTSTRAP_KEY_USERNAME = 'bootstrap-api-key';

/** A key's REST representation (what GET /api-keys/{id} answers): never its digest nor the key itself. */
export const apiKeyRepresentation = storedRepresentation(apiKeys);

export class ApiKeyService {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly owners: ApiKeyOwners,
    private readonly logger: Logger,
    private readonly bootstrapKey: string | undefined,
    /** Accounts whose deletion is under way: a key created for one undoes itself (ADR 0009's order). */
    private readonly marks: DeletionMarks,
    private readonly outbox?: EventOutbox,
  ) {}

  /**
   * The event of a key's creation, rename or revocation (ADR 0023), private to its owner (and admins), with the key's
   * REST representation (never its digest). The last-use stamp records none: it is bookkeeping, not a change.
   */
  private keyEvent(caller: RequestCaller, type: EventType): WriteEvent<ApiKeyDocument> | undefined {
    const outbox = this.outbox;
    if (!outbox) return undefined;
    return {
      outbox,
      of: (key) =>
        buildEvent(caller, type, { type: 'api_key', id: key._id }, apiKeyRepresentation(key), {
          scope: 'users:read',
          ownerId: key.userId,
          private: true,
        }),
    };
  }

  async create(caller: RequestCaller, rawInput: unknown): Promise<CreatedApiKey> {
    const principal = requireKeyManager(caller);
    const input = parseWrite(apiKeys, 'create', rawInput).input as { name: string; scopes: string[] };
    const scopes = [...new Set(input.scopes)];
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length > 0) {
      throw validationError([{ field: 'scopes', message: `unknown scope(s): ${unknown.join(', ')}` }]);
    }
    const granted = new Set(
      principal.scopes.filter((s) => isScope(s) && scopesForRole(principal.role).includes(s)),
    );
    const wider = scopes.filter((s) => !granted.has(s));
    if (wider.length > 0) {
      throw validationError([
        { field: 'scopes', message: `may not exceed your own scopes; not held: ${wider.join(', ')}` },
      ]);
    }
    const userId = principal.userId;
    if ((await this.keys.countByUser(userId)) >= API_KEYS_PER_USER_MAX) {
      throw new AppError('CONFLICT', `API key limit reached (${API_KEYS_PER_USER_MAX}); revoke a key first`);
    }
    const key = generateSecretToken('ak', KEY_BYTES);
    const document: ApiKeyDocument = {
      _id: await this.keys.nextId(),
      userId,
      name: input.name,
      scopes,
      digest: digestSecret(key),
      prefix: key.slice(0, PREFIX_LENGTH),
      createdAt: new Date(),
      lastUsedAt: null,
    };
    // The creator's token may outlive its account by a request in flight: a key for a deleted account never stands
    // (checked after the insert, before its event is published: a refused key publishes nothing).
    await this.keys.insert(document, this.keyEvent(caller, 'api_key.created'), async () => {
      if ((await this.marks.undoIfMarked([deletedAccount(userId)], () => this.keys.discard(document._id))).length > 0)
        throw new AppError('UNAUTHENTICATED', 'Invalid token');
    });
    this.logger.info(
      { requestId: caller.requestId, apiKeyId: document._id, userId, scopes },
      'api key created',
    );
    const { digest: _digest, ...apiKey } = document;
    return { apiKey, key };
  }

  /** The caller's own keys, admins included: a key is a personal credential, not an account record. */
  async list(caller: RequestCaller): Promise<StoredApiKey[]> {
    const principal = requireKeyManager(caller);
    return this.keys.listByUser(principal.userId);
  }

  /** One of the caller's own keys; null for another user's key as for a missing one. */
  async get(caller: RequestCaller, id: number): Promise<StoredApiKey | null> {
    const principal = requireKeyManager(caller);
    return this.keys.findOwned(id, principal.userId);
  }

  /** Relabels one of the caller's keys (at `expectedVersion` when given: 412 if it moved on); scopes never change. */
  async rename(
    caller: RequestCaller,
    id: number,
    rawInput: unknown,
    expectedVersion?: number | null,
  ): Promise<StoredApiKey> {
    const principal = requireKeyManager(caller);
    const input = parseWrite(apiKeys, 'update', rawInput).input as { name: string };
    const event = this.keyEvent(caller, 'api_key.updated');
    const renamed = await this.keys.renameOwned(id, principal.userId, input.name, expectedVersion, event);
    if (!renamed) throw notFound('API key', id);
    return renamed;
  }

  /** Another user's key answers 404 like a missing one, so ids reveal nothing. */
  async revoke(caller: RequestCaller, id: number, expectedVersion?: number | null): Promise<void> {
    const principal = requireKeyManager(caller);
    const event = this.keyEvent(caller, 'api_key.revoked');
    if (!(await this.keys.deleteOwned(id, principal.userId, expectedVersion, event)))
      throw notFound('API key', id);
    this.logger.info(
      { requestId: caller.requestId, apiKeyId: id, userId: principal.userId },
      'api key revoked',
    );
  }

  /**
   * For the gateway only. null for an unknown or revoked key and for a key whose owner is gone or inactive.
   * The owner's current role caps the key's scopes (a demoted owner's keys lose what the new role lacks).
   */
  async verify(caller: RequestCaller, key: string): Promise<ApiKeyPrincipal | null> {
    requireService(caller.principal);
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) return null;
    // Constant-time whatever the lengths: both sides are hashed to equal-length digests first.
    if (this.bootstrapKey !== undefined && digestsEqual(key, this.bootstrapKey)) {
      return {
        keyId: null,
        userId: null,
        username: BOOTSTRAP_KEY_USERNAME,
        role: 'viewer',
        scopes: [...READ_SCOPES],
      };
    }
    // Looked up by digest through a unique index: what a timing difference could reveal is about a hash, not the key.
    const stored = await this.keys.findByDigest(digestSecret(key));
    if (!stored) return null;
    const owner = await this.owners.status(stored.userId, caller.requestId);
    if (!owner?.isActive) return null;
    const allowed = scopesForRole(owner.role) as string[];
    // Only a recorded use changes what readers see (its write bumps the key's generation): a check within the minute
    // invalidates nothing.
    this.keys.touch(stored._id, new Date(), LAST_USED_GRANULARITY_MS).catch((error: unknown) => {
      this.logger.warn(
        { requestId: caller.requestId, apiKeyId: stored._id, err: error instanceof Error ? error.message : 'error' },
        'api key last-use not recorded',
      );
    });
    return {
      keyId: stored._id,
      userId: stored.userId,
      username: owner.username,
      role: owner.role,
      scopes: stored.scopes.filter((s) => allowed.includes(s)),
    };
  }

  /**
   * Account deletion (internal): the account is marked deleted, then every key of the user goes, so a creation racing
   * the purge is either swept or undoes itself; idempotent.
   */
  async purgeUser(caller: RequestCaller, userId: number): Promise<number> {
    requireService(caller.principal);
    await this.marks.mark(deletedAccount(userId));
    const deleted = await this.keys.deleteByUser(userId);
    if (deleted > 0)
      this.logger.info({ requestId: caller.requestId, userId, count: deleted }, 'api keys purged');
    return deleted;
  }
}

/** Keys are managed with a login token only: a key (or a service) cannot mint, list or revoke keys. */
function requireKeyManager(caller: RequestCaller): Principal & { userId: number } {
  const principal = requirePrincipal(caller.principal, caller.authError);
  if (principal.kind !== 'user' || principal.userId === null) {
    throw new AppError(
      'FORBIDDEN',
      'Not enough permissions: API keys are managed with a bearer token from a login',
    );
  }
  return principal as Principal & { userId: number };
}
