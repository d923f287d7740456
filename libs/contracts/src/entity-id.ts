/** Entity ids are integers >= 1 carried as GraphQL IDs; anything else is a validation error naming the argument. */
import { validationError } from '@platform/errors';

export const isEntityId = (raw: unknown): boolean =>
  (typeof raw === 'string' || typeof raw === 'number') && /^[1-9]\d{0,15}$/.test(String(raw));

export function parseEntityId(raw: unknown, field: string): number {
  if (!isEntityId(raw)) throw validationError([{ field, message: 'must be an integer >= 1' }]);
  return Number(raw);
}
