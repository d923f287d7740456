/** Entity ids are integers >= 1 carried as GraphQL IDs; anything else is a validation error naming the argument. */
import { validationError } from '@platform/errors';

export function parseEntityId(raw: string | number, field: string): number {
  const text = String(raw);
  if (!/^[1-9]\d{0,15}$/.test(text)) throw validationError([{ field, message: 'must be an integer >= 1' }]);
  return Number(text);
}
