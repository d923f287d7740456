/**
 * A declared resource's writes in its subgraph: the GraphQL input validated once against the declaration's rules
 * (keyed by GraphQL names: no REST-shaped copy is rebuilt), then turned into the stored changes of the operation
 * (omitted fields as the declaration says: null, kept, or the caller's id; values in their stored form and paths).
 */
import { AppError } from '@platform/errors';
import { isAdmin, type Principal } from '@platform/auth';
import { graphqlInputSchema, parseInput, writableFields, type Resource, type WriteOperation } from '@platform/contracts';

/** A validated write: the input as GraphQL names it (fields not stored included, e.g. a password) and its changes. */
export interface ParsedWrite {
  input: Record<string, unknown>;
  /** The stored paths and values the operation sets (what a document is created with, or a record changed by). */
  changes: Record<string, unknown>;
}

/**
 * Validates an operation's GraphQL input (`input.<field>` in errors) and derives its stored changes; `principal`
 * provides the caller's id where an omitted field defaults to it (an item's owner on create).
 */
export function parseWrite(
  resource: Resource,
  operation: WriteOperation,
  rawInput: unknown,
  principal?: Principal,
): ParsedWrite {
  const input = parseInput(graphqlInputSchema(resource, operation), rawInput ?? {}, 'input') as Record<string, unknown>;
  const changes: Record<string, unknown> = {};
  for (const field of writableFields(resource, operation)) {
    if (field.stored === null) continue;
    let value = input[field.key];
    if (value === undefined) {
      if (operation === 'update') continue;
      const omitted = field.write?.omitted?.[operation] ?? 'null';
      if (omitted === 'keep') continue;
      value = omitted === 'caller' ? (principal?.userId ?? null) : null;
    } else if (value !== null && field.toStored) {
      value = (field.toStored as (given: unknown) => unknown)(value);
    }
    changes[field.stored] = value;
  }
  return { input, changes };
}

/**
 * Fields only an admin sets to anything but the caller's own id (an item's owner): 403 naming the field's REST name
 * for anyone else who gave one. Run after the record's 404 and ownership checks.
 */
export function checkAdminOnly(resource: Resource, principal: Principal, input: Record<string, unknown>): void {
  if (isAdmin(principal)) return;
  for (const field of resource.fields) {
    if (!field.write?.adminOnly) continue;
    const given = input[field.key];
    if (given !== undefined && (given === null || given !== principal.userId)) {
      throw new AppError('FORBIDDEN', `Not enough permissions: only an admin may set ${field.rest ?? field.key}`);
    }
  }
}
