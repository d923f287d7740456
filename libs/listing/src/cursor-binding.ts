/**
 * Binds cursors to one listing query (collection, parent scope, filter, sort): issuing from a record's stored sort
 * values, and reading them back verified.
 */
import { CursorError, decodeCursor, encodeCursor, hashQuery, type CursorSecret } from './cursor-codec';
import type { ListingSpec } from './listing-specs';
import type { FilterInput, ScalarValue } from './listing-types';
import { canonicalQuery, coerceValue, toStoredValue, type SortKey } from './listing-values';

export type SortValues = Array<ScalarValue | null>;

/**
 * Where a listing pages: the collection, and for a nested one the parent it hangs under (`comments@post:5`), so that a
 * cursor of /posts/5/comments does not page /posts/6/comments.
 */
export const collectionOf = (spec: ListingSpec, scope?: string): string =>
  scope === undefined ? spec.resource : `${spec.resource}@${scope}`;

/** The scope of a listing nested under one record of another collection, e.g. a post's comments. */
export const parentScope = (parent: 'post', id: number): string => `${parent}:${id}`;

/** Reads and checks a cursor for this collection, filter and effective order; throws CursorError with a client-safe message. */
export function readCursor(
  spec: ListingSpec,
  filter: FilterInput,
  sort: readonly SortKey[],
  token: string,
  secret: CursorSecret,
  scope?: string,
): SortValues {
  const payload = decodeCursor(token, secret);
  if (payload.collection !== collectionOf(spec, scope)) throw new CursorError('was issued for another collection');
  if (payload.queryHash !== hashQuery(canonicalQuery(spec, filter, sort))) {
    throw new CursorError('was issued for a different filter or sort');
  }
  if (payload.values.length !== sort.length) throw new CursorError('is not a valid cursor');
  sort.forEach((key, index) => {
    const value = payload.values[index];
    if (value === null || value === undefined) {
      if (key.field.path === '_id') throw new CursorError('is not a valid cursor');
      return;
    }
    const ok =
      key.field.type === 'integer'
        ? Number.isSafeInteger(value)
        : key.field.type === 'number'
          ? typeof value === 'number' && Number.isFinite(value)
          : typeof value === key.field.type;
    if (!ok) throw new CursorError('is not a valid cursor');
  });
  return payload.values;
}

export function issueCursor(
  spec: ListingSpec,
  filter: FilterInput,
  sort: readonly SortKey[],
  values: SortValues,
  secret: CursorSecret,
  scope?: string,
): string {
  return encodeCursor(
    { collection: collectionOf(spec, scope), values, queryHash: hashQuery(canonicalQuery(spec, filter, sort)) },
    secret,
  );
}

/**
 * The stored sort values of one record. Raw documents are read by MongoDB path (`_id`, `priceCents`); records already
 * mapped to GraphQL names (`id`, `price`) are read by name and converted to the stored form.
 */
export function sortValuesOf(record: unknown, sort: readonly SortKey[]): SortValues {
  return sort.map(({ field }) => {
    const stored = readPath(record, field.path);
    if (stored !== undefined) return normalize(stored);
    const named = readPath(record, field.graphql);
    if (named === undefined || named === null) return null;
    const coerced = coerceValue({ ...field, values: undefined }, named, 'graphql');
    return coerced.ok ? toStoredValue(field, coerced.value) : normalize(named);
  });
}

function readPath(record: unknown, path: string): unknown {
  let current: unknown = record;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function normalize(value: unknown): ScalarValue | null {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return null;
}
