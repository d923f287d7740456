/**
 * Entity ids: canonical positive decimal integers (`[1-9][0-9]*`, at most 15 digits), carried as GraphQL IDs and REST
 * path segments. `0x10`, ` 1`, `1\n`, `1e3`, `01`, `0` and `1.0` are not ids: a client error naming the field.
 * One parser for every transport (docs/interface.md#ids).
 */
import { z } from 'zod';
import { validationError } from '@platform/errors';

/** 15 digits stay far inside Number's exact integers, so a parsed id prints back as the very same text. */
export const ENTITY_ID_MAX = 999_999_999_999_999;
const CANONICAL_ID = /^[1-9][0-9]{0,14}$/;
export const ENTITY_ID_MESSAGE = `must be an integer from 1 to ${ENTITY_ID_MAX}, written in plain decimal digits`;

/** A string of canonical decimal digits, or a number that prints as one (GraphQL may deliver an ID as either). */
export const isEntityId = (raw: unknown): boolean =>
  (typeof raw === 'string' && CANONICAL_ID.test(raw)) ||
  (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 1 && raw <= ENTITY_ID_MAX);

export function parseEntityId(raw: unknown, field: string): number {
  if (!isEntityId(raw)) throw validationError([{ field, message: ENTITY_ID_MESSAGE }]);
  return Number(raw);
}

/**
 * A path parameter holding an entity id: validated by isEntityId, parsed to a number, documented in OpenAPI as the
 * integer it is (JSON Schema cannot say "canonical"; a client that serialises an integer always writes it so).
 */
export const entityIdParam = (description: string) =>
  z
    .custom<string | number>(isEntityId, ENTITY_ID_MESSAGE)
    .meta({ type: 'integer', minimum: 1, maximum: ENTITY_ID_MAX })
    .transform((raw) => Number(raw))
    .describe(description);
