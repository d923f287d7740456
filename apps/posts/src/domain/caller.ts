/** The caller as the domain sees it, and the limits of nested lists. */
import { AppError } from '@platform/errors';
import type { Principal } from '@platform/auth';

export interface Caller {
  principal: Principal | null;
  authError: AppError | null;
}

/** User.posts and Post.comments return at most this many records per parent (argument `first`). */
export const MAX_NESTED_FIRST = 100;

export function parseNestedFirst(first: unknown): number {
  if (first === undefined || first === null) return 20;
  if (typeof first !== 'number' || !Number.isInteger(first) || first < 1 || first > MAX_NESTED_FIRST) {
    throw new AppError('BAD_USER_INPUT', `first must be an integer from 1 to ${MAX_NESTED_FIRST}`, {
      details: [{ field: 'first', message: `must be an integer from 1 to ${MAX_NESTED_FIRST}` }],
    });
  }
  return first;
}

/** Writes act for a user: a principal without one (a service, the bootstrap API key) cannot author or like. */
export function actingUserId(principal: Principal): number {
  if (principal.userId === null)
    throw new AppError('FORBIDDEN', 'Not enough permissions: this credential does not act for a user');
  return principal.userId;
}
