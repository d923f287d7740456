/**
 * Subgraph side of listings: validates connection arguments again (GraphQL clients reach subgraphs through the
 * gateway without REST), turns them into a plain MongoDB find plan built from typed values only, and turns the
 * documents found into a connection with an HMAC-signed end cursor and a lazily counted total.
 */
import { validationError } from '@platform/errors';
import { CursorError, type CursorSecret } from './cursor-codec';
import { issueCursor, readCursor, sortValuesOf, type SortValues } from './cursor-binding';
import type { ListingSpec } from './listing-specs';
import type { ConnectionArgs, FilterInput, FilterOperator, MongoListPlan, PageInfo, ScalarValue } from './listing-types';
import {
  MAX_IN_VALUES,
  coerceValue,
  effectiveSort,
  fieldByGraphql,
  isOperator,
  operatorsFor,
  parseSortKey,
  toStoredValue,
  type SortKey,
} from './listing-values';

export const DEFAULT_FIRST = 20;
/** Root lists for GraphQL clients: at most 100 a page, like REST's pageSize. */
export const MAX_FIRST = 100;
/** The REST facade's `limit` (1..1000, docs/interface.md#pagination) reaches the subgraphs as `first`. */
export const MAX_FACADE_FIRST = 1000;

type MongoFilter = Record<string, unknown>;

interface ValidatedArgs {
  /** The parent a nested listing hangs under (cursors are bound to it), e.g. `post:5` for a post's comments. */
  scope: string | undefined;
  first: number;
  offset: number | null;
  filter: FilterInput;
  sort: SortKey[];
  after: SortValues | null;
}

/** What planMongoList learnt, kept for toConnection so the arguments are not validated twice. */
const planDetails = new WeakMap<MongoListPlan, ValidatedArgs>();

const fail = (field: string, message: string): never => {
  throw validationError([{ field, message }]);
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function validateFirst(first: unknown, max: number): number {
  if (first === undefined || first === null) return DEFAULT_FIRST;
  if (typeof first !== 'number' || !Number.isInteger(first) || first < 1 || first > max) {
    return fail('first', `must be an integer from 1 to ${max}`);
  }
  return first;
}

function validateOffset(offset: unknown): number | null {
  if (offset === undefined || offset === null) return null;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) return fail('offset', 'must be an integer >= 0');
  return offset;
}

/** Types every filter value (GraphQL names), refusing unknown fields, unknown operators and non-scalar values. */
export function validateFilter(spec: ListingSpec, filter: unknown): FilterInput {
  if (filter === undefined || filter === null) return {};
  if (!isPlainObject(filter)) return fail('filter', 'must be an object');
  const typed: FilterInput = {};
  for (const [name, ops] of Object.entries(filter)) {
    const field = fieldByGraphql(spec, name);
    if (!field) return fail(`filter.${name}`, 'is not a filterable field');
    if (ops === undefined || ops === null) continue;
    if (!isPlainObject(ops)) return fail(`filter.${name}`, 'must be an object of operators');
    const typedOps: Partial<Record<FilterOperator, ScalarValue | ScalarValue[]>> = {};
    for (const [op, raw] of Object.entries(ops)) {
      const path = `filter.${name}.${op}`;
      if (!isOperator(op) || !operatorsFor(field).includes(op)) return fail(path, `is not an operator of ${name}`);
      if (raw === undefined || raw === null) continue;
      if (op === 'in') {
        const list: unknown[] = Array.isArray(raw) ? raw : [raw];
        if (list.length > MAX_IN_VALUES) return fail(path, `must have at most ${MAX_IN_VALUES} values`);
        typedOps.in = list.map((item) => {
          const coerced = coerceValue(field, item, 'graphql');
          return coerced.ok ? coerced.value : fail(path, coerced.message);
        });
      } else {
        const coerced = coerceValue(field, raw, 'graphql');
        typedOps[op] = coerced.ok ? coerced.value : fail(path, coerced.message);
      }
    }
    if (Object.keys(typedOps).length > 0) typed[field.graphql] = typedOps;
  }
  return typed;
}

/** Sort keys (GraphQL names, `-` for descending), each field at most once; `id` appended as the tie-breaker. */
export function validateSort(spec: ListingSpec, sort: unknown): SortKey[] {
  if (sort === undefined || sort === null) return effectiveSort(spec, []);
  if (!Array.isArray(sort)) return fail('sort', 'must be a list of field names');
  const keys: SortKey[] = [];
  for (const raw of sort) {
    const key = typeof raw === 'string' ? parseSortKey(spec, raw, fieldByGraphql) : undefined;
    if (!key) return fail('sort', `${JSON.stringify(raw)} is not a sortable field`);
    if (keys.some((existing) => existing.field === key.field)) return fail('sort', `${key.field.graphql} appears more than once`);
    keys.push(key);
  }
  return effectiveSort(spec, keys);
}

function validateArgs(
  spec: ListingSpec,
  args: ConnectionArgs,
  cursorSecret: CursorSecret,
  maxFirst: number,
  scope: string | undefined,
): ValidatedArgs {
  const first = validateFirst(args.first, maxFirst);
  const offset = validateOffset(args.offset);
  const filter = validateFilter(spec, args.filter);
  const sort = validateSort(spec, args.sort);
  let after: SortValues | null = null;
  if (args.after !== undefined && args.after !== null) {
    if (typeof args.after !== 'string') return fail('after', 'must be a string');
    if (offset !== null) return fail('offset', 'cannot be combined with after');
    try {
      after = readCursor(spec, filter, sort, args.after, cursorSecret, scope);
    } catch (error) {
      if (error instanceof CursorError) return fail('after', error.message);
      throw error;
    }
  }
  return { scope, first, offset, filter, sort, after };
}

/** `{ path: { $eq, $lt, $gt, $in } }` from typed values; operator names come from the allowlist, never from input. */
export function toMongoFilter(spec: ListingSpec, filter: FilterInput): MongoFilter {
  const mongo: MongoFilter = {};
  for (const field of spec.fields) {
    const ops = filter[field.graphql];
    if (!ops) continue;
    const condition: Record<string, unknown> = {};
    for (const op of operatorsFor(field)) {
      const value = ops[op];
      if (value === undefined || value === null) continue;
      condition[`$${op}`] = Array.isArray(value) ? value.map((v) => toStoredValue(field, v)) : toStoredValue(field, value as ScalarValue);
    }
    if (Object.keys(condition).length > 0) mongo[field.path] = condition;
  }
  return mongo;
}

/**
 * Records strictly after `values` in the given order: for keys k1..kn,
 * `$or: [ {k1 after v1}, {k1 = v1, k2 after v2}, ... ]`. MongoDB orders a missing/null value before every other
 * value, so after a null comes every non-null value (ascending), and after a value comes null (descending).
 */
export function keysetCondition(sort: readonly SortKey[], values: SortValues): MongoFilter {
  const branches: MongoFilter[] = [];
  for (let index = 0; index < sort.length; index += 1) {
    const key = sort[index] as SortKey;
    const value = values[index] ?? null;
    const after = strictlyAfter(key.field.path, key.direction, value);
    if (after === null) continue;
    const equalities = sort.slice(0, index).map((prior, j) => ({ [prior.field.path]: values[j] ?? null }));
    branches.push(equalities.length === 0 ? after : { $and: [...equalities, after] });
  }
  if (branches.length === 1) return branches[0] as MongoFilter;
  return { $or: branches };
}

function strictlyAfter(path: string, direction: 1 | -1, value: ScalarValue | null): MongoFilter | null {
  if (value === null) return direction === 1 ? { [path]: { $ne: null } } : null;
  if (direction === 1) return { [path]: { $gt: value } };
  return { $or: [{ [path]: { $lt: value } }, { [path]: null }] };
}

/**
 * `facadeCall`: the REST facade's own call (root lists up to REST's `limit`); `scope` names the parent of a nested
 * listing (see parentScope): cursors of another parent are refused.
 */
export function planMongoList(
  spec: ListingSpec,
  args: ConnectionArgs,
  cursorSecret: CursorSecret,
  options: { facadeCall?: boolean | undefined; scope?: string | undefined } = {},
): MongoListPlan {
  const maxFirst = options.facadeCall ? MAX_FACADE_FIRST : MAX_FIRST;
  const validated = validateArgs(spec, args, cursorSecret, maxFirst, options.scope);
  const base = toMongoFilter(spec, validated.filter);
  let filter: MongoFilter = base;
  if (validated.after) {
    const keyset = keysetCondition(validated.sort, validated.after);
    filter = Object.keys(base).length === 0 ? keyset : { $and: [base, keyset] };
  }
  const plan: MongoListPlan = {
    filter,
    sort: validated.sort.map((key) => [key.field.path, key.direction]),
    skip: validated.offset ?? 0,
    limit: validated.first + 1,
    pageSize: validated.first,
    countFilter: base,
  };
  planDetails.set(plan, validated);
  return plan;
}

export interface Connection<T> {
  nodes: T[];
  pageInfo: PageInfo;
  /** Counted only when called: graphql-js's default resolver calls it only when `totalCount` is selected. */
  totalCount: () => Promise<number>;
}

export function toConnection<T>(
  docs: T[],
  plan: MongoListPlan,
  spec: ListingSpec,
  args: ConnectionArgs,
  cursorSecret: CursorSecret,
  count: (countFilter: Record<string, unknown>) => Promise<number>,
  scope?: string,
): Connection<T> {
  // The plan was validated against its caller's maximum already; re-reading its arguments needs no tighter one.
  const validated = planDetails.get(plan) ?? validateArgs(spec, args, cursorSecret, MAX_FACADE_FIRST, scope);
  const nodes = docs.slice(0, plan.pageSize);
  const last = nodes[nodes.length - 1];
  const endCursor =
    last === undefined ? null : issueCursor(spec, validated.filter, validated.sort, sortValuesOf(last, validated.sort), cursorSecret, validated.scope);
  let counted: Promise<number> | undefined;
  return {
    nodes,
    pageInfo: { endCursor, hasNextPage: docs.length > plan.pageSize },
    totalCount: () => (counted ??= count(plan.countFilter)),
  };
}

/**
 * Index keys a collection needs for its listings: per field `{ field: 1, _id: 1 }` (equality/range filters and the
 * ascending sort with its `_id` tie-breaker) and `{ field: -1, _id: 1 }` (the descending sort; the tie-breaker stays
 * ascending, so the first index read backwards does not serve it). `_id` is indexed already.
 */
export function listIndexes(spec: ListingSpec, collection: string): Array<{ collection: string; key: Record<string, 1 | -1> }> {
  return spec.fields
    .filter((field) => field.path !== '_id')
    .flatMap((field) => [
      { collection, key: { [field.path]: 1, _id: 1 } as Record<string, 1 | -1> },
      { collection, key: { [field.path]: -1, _id: 1 } as Record<string, 1 | -1> },
    ]);
}
