/** Typed filter values and sort keys per field, shared by the REST parser and the subgraph planner (one allowlist). */
import { isSafeText, UNSAFE_TEXT_MESSAGE } from '@platform/contracts';
import type { FieldType, ListingField, ListingSpec } from './listing-specs';
import type { FilterInput, FilterOperator, ScalarValue } from './listing-types';

export const FILTER_OPERATORS: readonly FilterOperator[] = ['eq', 'lt', 'gt', 'in'];
/** Booleans have no order worth filtering on (GraphQL `BooleanFilter { eq, in }`). */
const BOOLEAN_OPERATORS: readonly FilterOperator[] = ['eq', 'in'];
/** Upper bounds that keep one filter from becoming an expensive query. */
export const MAX_IN_VALUES = 100;
export const MAX_STRING_LENGTH = 1000;

export const operatorsFor = (field: ListingField): readonly FilterOperator[] =>
  field.type === 'boolean' ? BOOLEAN_OPERATORS : FILTER_OPERATORS;

export const isOperator = (value: string): value is FilterOperator => (FILTER_OPERATORS as readonly string[]).includes(value);

export const fieldByGraphql = (spec: ListingSpec, name: string): ListingField | undefined =>
  spec.fields.find((field) => field.graphql === name);

export const fieldByRest = (spec: ListingSpec, name: string): ListingField | undefined =>
  spec.fields.find((field) => field.rest === name);

const INTEGER = /^-?\d{1,16}$/;
/** A decimal filter value as the query string must spell it: plain notation, no exponent (`1e3` is refused). */
export const DECIMAL_PATTERN = '^-?\\d{1,16}(\\.\\d{1,16})?$';
const DECIMAL = new RegExp(DECIMAL_PATTERN);
/** An `in` list as it arrives (comma-separated): long enough for 100 ids or names, short enough to fit a URL. */
export const MAX_IN_TEXT_LENGTH = 4000;

export type Coerced = { ok: true; value: ScalarValue } | { ok: false; message: string };

const typeLabel: Record<FieldType, string> = {
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  string: 'a string',
};

/**
 * Types one value for a field. `text` is how REST query strings arrive (everything a string); `graphql` also accepts
 * the JSON scalars GraphQL delivers, strictly typed except that ID filters arrive as strings (integer fields accept
 * digit strings in both).
 */
export function coerceValue(field: ListingField, raw: unknown, source: 'text' | 'graphql'): Coerced {
  const fail = (): Coerced => ({ ok: false, message: `must be ${typeLabel[field.type]}` });
  switch (field.type) {
    case 'integer': {
      if (typeof raw === 'number') return source === 'graphql' && Number.isSafeInteger(raw) ? { ok: true, value: raw } : fail();
      if (typeof raw !== 'string' || !INTEGER.test(raw)) return fail();
      const value = Number(raw);
      return Number.isSafeInteger(value) ? { ok: true, value } : fail();
    }
    case 'number': {
      if (typeof raw === 'number') return source === 'graphql' && Number.isFinite(raw) ? { ok: true, value: raw } : fail();
      if (source === 'graphql' || typeof raw !== 'string' || !DECIMAL.test(raw)) return fail();
      const value = Number(raw);
      return Number.isFinite(value) ? { ok: true, value } : fail();
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return source === 'graphql' ? { ok: true, value: raw } : fail();
      if (source === 'graphql') return fail();
      if (raw === 'true') return { ok: true, value: true };
      if (raw === 'false') return { ok: true, value: false };
      return fail();
    }
    case 'string': {
      if (typeof raw !== 'string') return fail();
      if (raw.length > MAX_STRING_LENGTH) return { ok: false, message: `must be at most ${MAX_STRING_LENGTH} characters` };
      if (!isSafeText(raw)) return { ok: false, message: UNSAFE_TEXT_MESSAGE };
      // Values are bound with $eq/$in and never become keys, but nothing legitimate starts with `$`: refuse it outright.
      if (raw.startsWith('$')) return { ok: false, message: 'must not start with $' };
      if (field.values && !field.values.includes(raw)) return { ok: false, message: `must be one of ${field.values.join(', ')}` };
      return { ok: true, value: raw };
    }
  }
}

/** The stored form of a typed value (cents for prices); what MongoDB filters and cursors compare. */
export const toStoredValue = (field: ListingField, value: ScalarValue): ScalarValue =>
  field.toStored && typeof value === 'number' ? field.toStored(value) : value;

export interface SortKey {
  field: ListingField;
  direction: 1 | -1;
}

/** Parses `price` / `-price` (GraphQL names); undefined when the name is unknown. */
export function parseSortKey(spec: ListingSpec, key: string, byName: (spec: ListingSpec, name: string) => ListingField | undefined): SortKey | undefined {
  const descending = key.startsWith('-');
  const field = byName(spec, descending ? key.slice(1) : key);
  return field ? { field, direction: descending ? -1 : 1 } : undefined;
}

/** The order actually applied: the requested keys, then `id` ascending unless `id` was already among them. */
export function effectiveSort(spec: ListingSpec, keys: readonly SortKey[]): SortKey[] {
  if (keys.some((key) => key.field.path === '_id')) return [...keys];
  const id = spec.fields.find((field) => field.path === '_id');
  if (!id) throw new Error(`listing spec ${spec.resource} has no id field`);
  return [...keys, { field: id, direction: 1 }];
}

/**
 * A canonical description of filter and order (the thing a cursor is bound to): fields in spec order, operators in
 * fixed order, `in` lists sorted and de-duplicated, sort including the `id` tie-breaker.
 */
export function canonicalQuery(spec: ListingSpec, filter: FilterInput, sort: readonly SortKey[]): string {
  const filters: unknown[] = [];
  for (const field of spec.fields) {
    const ops = filter[field.graphql];
    if (!ops) continue;
    for (const op of FILTER_OPERATORS) {
      const value = ops[op];
      if (value === undefined || value === null) continue;
      const normalized = Array.isArray(value)
        ? [...new Set(value.map((v) => JSON.stringify(v)))].sort()
        : JSON.stringify(value);
      filters.push([field.graphql, op, normalized]);
    }
  }
  const order = sort.map((key) => `${key.direction === -1 ? '-' : ''}${key.field.graphql}`);
  return JSON.stringify([filters, order]);
}
