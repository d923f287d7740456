/** The user a write acts for. */
import { AppError } from '@platform/errors';
import type { Principal } from '@platform/auth';

/** Writes act for a user: a principal without one (a service, the bootstrap API key) cannot author or like. */
export function actingUserId(principal: Principal): number {
  if (principal.userId === null)
    throw new AppError('FORBIDDEN', 'Not enough permissions: this credential does not act for a user');
  return principal.userId;
}
