/** Entity ids are integers >= 1 carried as GraphQL IDs; anything else is a validation error naming the argument. */
import { validationError } from '@platform/errors';

export const isEntityId = (raw: unknown): boolean =>
  (typeof raw === 'string' || typeof raw === 'number') && /^[1-9]\d{0,15}$/.test(String(raw));

/** The largest id: ids are at most 15 decimal digits (CONTRACT.md, 2026-11-23). */
export const MAX_ENTITY_ID = 999_999_999_999_999;

export function parseEntityId(raw: unknown, field: string): number {
  if (!isEntityId(raw)) throw validationError([{ field, message: 'must be an integer >= 1' }]);
  return Number(raw);
}
