/** Nested lists (User.items, User.posts, Post.comments): at most this many records per parent, 20 unless `first` says. */
import { AppError } from '@platform/errors';

export const MAX_NESTED_FIRST = 100;
const DEFAULT_NESTED_FIRST = 20;

export function parseNestedFirst(first: unknown): number {
  if (first === undefined || first === null) return DEFAULT_NESTED_FIRST;
  if (typeof first !== 'number' || !Number.isInteger(first) || first < 1 || first > MAX_NESTED_FIRST) {
    throw new AppError('BAD_USER_INPUT', `first must be an integer from 1 to ${MAX_NESTED_FIRST}`, {
      details: [{ field: 'first', message: `must be an integer from 1 to ${MAX_NESTED_FIRST}` }],
    });
  }
  return first;
}
