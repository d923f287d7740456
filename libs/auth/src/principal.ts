/** Who is calling, and the checks every resolver applies: authenticated, scoped, owner or admin. */
import { AppError } from '@platform/errors';
import type { Role, Scope } from './scopes';

export interface Principal {
  kind: 'user' | 'api-key' | 'service';
  /** The user the call acts for (the key's creator for API keys); absent for bootstrap keys and services. */
  userId: number | null;
  username: string;
  role: Role;
  scopes: readonly string[];
}

/** The caller as a request's context records it: its principal, or why its credential was refused. */
export interface Caller {
  principal: Principal | null;
  authError: AppError | null;
  /** The REST facade's fixed operations (the gateway vouches for it): root lists may hold up to REST's `limit` of 1000. */
  facadeCall?: boolean | undefined;
}

/** The caller and the request id its calls to other services carry. */
export interface RequestCaller extends Caller {
  requestId: string;
  /** The end client's IP as the gateway or facade saw it (login throttle); absent when not known. */
  clientIp?: string | undefined;
}

/** Throws the authentication error the context recorded, or `Not authenticated` when there was no credential. */
export function requirePrincipal(principal: Principal | null, authError?: AppError | null): Principal {
  if (authError) throw authError;
  if (!principal) throw new AppError('UNAUTHENTICATED', 'Not authenticated');
  return principal;
}

export function requireScope(
  principal: Principal | null,
  scope: Scope,
  authError?: AppError | null,
): Principal {
  const p = requirePrincipal(principal, authError);
  if (!p.scopes.includes(scope)) {
    throw new AppError('FORBIDDEN', `Not enough permissions. Required: ${scope}`);
  }
  return p;
}

export const isAdmin = (principal: Principal): boolean =>
  principal.role === 'admin' && principal.kind !== 'service';

/** A member may write only records it owns; an admin may write all. */
export const canWriteAsOwner = (principal: Principal, ownerId: number | null | undefined): boolean =>
  isAdmin(principal) ||
  (principal.userId !== null && ownerId !== null && ownerId !== undefined && principal.userId === ownerId);

export function requireOwnerOrAdmin(principal: Principal, ownerId: number | null | undefined): void {
  if (!canWriteAsOwner(principal, ownerId)) {
    throw new AppError('FORBIDDEN', 'Not enough permissions: you may only modify your own records');
  }
}

/** Internal operations (fields marked @inaccessible) accept only another service's token (kind service, scope internal). */
export function requireServicePrincipal(principal: Principal | null, authError?: AppError | null): Principal {
  if (authError) throw authError;
  if (principal?.kind !== 'service' || !principal.scopes.includes('internal')) {
    throw new AppError('FORBIDDEN', 'Not enough permissions');
  }
  return principal;
}
