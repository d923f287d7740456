/**
 * REST side of listings: the query string (express `simple` parser: literal `price[gt]` keys, repeated params as
 * arrays) -> a typed ListQuery, ListQuery -> GraphQL connection variables, and a connection -> the response body of
 * the chosen style (array, envelope A or envelope B). Every client error names the offending parameter.
 */
import { validationError } from '@platform/errors';
import { CursorError, type CursorSecret } from './cursor-codec';
import { readCursor } from './cursor-binding';
import type { ListingSpec } from './listing-specs';
import type { FilterInput, FilterOperator, ListQuery, PageInfo, PaginationRequest, ScalarValue } from './listing-types';
import {
  MAX_IN_TEXT_LENGTH,
  MAX_IN_VALUES,
  coerceValue,
  effectiveSort,
  fieldByGraphql,
  fieldByRest,
  isOperator,
  operatorsFor,
  parseSortKey,
  type SortKey,
} from './listing-values';

export type ListStyle = PaginationRequest['style'];

/** Defaults and bounds (docs/interface.md#pagination); values out of range are refused, never clamped. */
export const LISTING_LIMITS = {
  pageSize: { default: 20, min: 1, max: 100 },
  size: { default: 10, min: 1, max: 100 },
  page: { default: 1, min: 1, max: 1_000_000 },
  limit: { default: 100, min: 1, max: 1000 },
  // GraphQL's Int (32-bit signed) carries the offset to the subgraphs: beyond it is this parameter's error, not theirs.
  offset: { default: 0, min: 0, max: 2_147_483_647 },
  lastSeenId: { min: 0, max: Number.MAX_SAFE_INTEGER },
} as const;

/** Listing parameters of each style (the order of this record is the precedence: cursor, page, keyset, offset). */
export const STYLE_PARAMETERS: Readonly<Record<ListStyle, readonly string[]>> = {
  cursor: ['pageSize', 'pageToken', 'cursor'],
  page: ['page', 'size'],
  keyset: ['lastSeenId', 'limit'],
  offset: ['offset', 'skip', 'limit'],
};
/** Which parameters select a style when present (`limit` alone means offset). */
const STYLE_SELECTORS: ReadonlyArray<[ListStyle, readonly string[]]> = [
  ['cursor', ['pageSize', 'pageToken', 'cursor']],
  ['page', ['page', 'size']],
  ['keyset', ['lastSeenId']],
];
const ALL_LISTING_PARAMETERS = new Set(Object.values(STYLE_PARAMETERS).flat());

export interface RestListOptions {
  /** Other parameters the route accepts (e.g. `version`, `api_key`); they are neither filters nor refused. */
  reserved?: readonly string[];
  /** A deployment that lists in one style only (USERS_LIST_STYLE): the other styles' parameters are unknown. */
  forcedStyle?: 'offset' | 'page';
  /** When given, a `pageToken`/`cursor` is verified here against this request's collection, filter and sort. */
  cursorSecret?: CursorSecret;
  /** The parent a nested listing hangs under (parentScope), bound into its cursors; the subgraph checks the same. */
  cursorScope?: string;
}

const fail = (field: string, message: string): never => {
  throw validationError([{ field, message }]);
};

const FILTER_KEY = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[([^\]]*)\])?$/;

/** A single query-string value; repeated parameters and operator objects are refused. */
function single(name: string, raw: unknown): string {
  if (typeof raw === 'string') return raw;
  if (Array.isArray(raw)) return fail(name, 'must not be repeated');
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  return fail(name, 'must be a single value');
}

function integerParam(query: Record<string, unknown>, name: keyof typeof LISTING_LIMITS): number | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const text = single(name, raw);
  const bounds = LISTING_LIMITS[name];
  const range = bounds.max === Number.MAX_SAFE_INTEGER ? `>= ${bounds.min}` : `from ${bounds.min} to ${bounds.max}`;
  if (!/^-?\d{1,16}$/.test(text)) return fail(name, `must be an integer ${range}`);
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < bounds.min || value > bounds.max) return fail(name, `must be an integer ${range}`);
  return value;
}

function chooseStyle(present: ReadonlySet<string>, forcedStyle: RestListOptions['forcedStyle']): ListStyle {
  if (forcedStyle) return forcedStyle;
  for (const [style, selectors] of STYLE_SELECTORS) if (selectors.some((name) => present.has(name))) return style;
  return 'offset';
}

/** Filters in REST names -> FilterInput in GraphQL names with typed values. */
function parseFilter(spec: ListingSpec, key: string, raw: unknown, filter: FilterInput): boolean {
  const match = FILTER_KEY.exec(key);
  if (!match) return false;
  const [, name, op] = match as unknown as [string, string, string | undefined];
  const field = fieldByRest(spec, name);
  // `id` is sortable and the keyset key, but not a REST filter (docs/interface.md#filters-and-sort).
  if (!field || field.path === '_id') return false;
  const operator = op === undefined ? 'eq' : op;
  if (!isOperator(operator) || !operatorsFor(field).includes(operator)) {
    return fail(key, `unknown operator; ${name} accepts ${operatorsFor(field).join(', ')}`);
  }
  const text = single(key, raw);
  const ops = (filter[field.graphql] ??= {});
  if (ops[operator] !== undefined) return fail(key, `${name} ${operator} is given more than once`);
  if (operator === 'in') {
    if (text.length > MAX_IN_TEXT_LENGTH) return fail(key, `must be at most ${MAX_IN_TEXT_LENGTH} characters`);
    const parts = text.split(',');
    if (parts.length > MAX_IN_VALUES) return fail(key, `must have at most ${MAX_IN_VALUES} values`);
    ops.in = parts.map((part) => typed(key, field, part));
  } else {
    ops[operator as Exclude<FilterOperator, 'in'>] = typed(key, field, text);
  }
  return true;
}

function typed(key: string, field: Parameters<typeof coerceValue>[0], text: string): ScalarValue {
  const coerced = coerceValue(field, text, 'text');
  return coerced.ok ? coerced.value : fail(key, coerced.message);
}

/** `sort=price&sort=-name` (also `sort=price,-name`), REST names -> GraphQL keys. */
function parseSort(spec: ListingSpec, raw: unknown): string[] {
  if (raw === undefined) return [];
  const values = Array.isArray(raw) ? raw : [raw];
  const keys: SortKey[] = [];
  for (const value of values) {
    if (typeof value !== 'string') return fail('sort', 'must be a field name, optionally prefixed with -');
    for (const part of value.split(',')) {
      const key = parseSortKey(spec, part, fieldByRest);
      if (!key) return fail('sort', `${JSON.stringify(part)} is not a sortable field`);
      if (keys.some((existing) => existing.field === key.field)) return fail('sort', `${key.field.rest} appears more than once`);
      keys.push(key);
    }
  }
  return keys.map((key) => `${key.direction === -1 ? '-' : ''}${key.field.graphql}`);
}

/** The sort keys of a ListQuery as the subgraph will apply them (id appended). */
function sortKeysOf(spec: ListingSpec, sort: readonly string[]): SortKey[] {
  return effectiveSort(
    spec,
    sort.map((key) => parseSortKey(spec, key, fieldByGraphql) as SortKey),
  );
}

export function parseRestListQuery(query: Record<string, unknown>, spec: ListingSpec, options: RestListOptions = {}): ListQuery {
  const reserved = new Set(options.reserved ?? []);
  const present = new Set(Object.keys(query).filter((key) => query[key] !== undefined));
  const style = chooseStyle(present, options.forcedStyle);
  const allowed = new Set(STYLE_PARAMETERS[style]);
  const filter: FilterInput = {};

  for (const key of present) {
    if (reserved.has(key)) continue;
    if (key.includes('$')) fail(key, 'must not contain $');
    if (key === 'sort') continue;
    if (ALL_LISTING_PARAMETERS.has(key)) {
      if (allowed.has(key)) continue;
      if (options.forcedStyle && !STYLE_PARAMETERS[options.forcedStyle].includes(key)) fail(key, 'is not a known parameter');
      fail(key, `cannot be combined with ${style} pagination parameters`);
    }
    if (!parseFilter(spec, key, query[key], filter)) fail(key, 'is not a known parameter');
  }
  if (present.has('offset') && present.has('skip') && allowed.has('skip')) fail('skip', 'cannot be combined with offset');
  if (present.has('pageToken') && present.has('cursor')) fail('cursor', 'cannot be combined with pageToken');

  const sort = parseSort(spec, query['sort']);
  const pagination = parsePagination(query, style, sort);
  if (pagination.style === 'cursor' && pagination.pageToken !== null && options.cursorSecret) {
    const name = query['pageToken'] !== undefined ? 'pageToken' : 'cursor';
    try {
      readCursor(spec, filter, sortKeysOf(spec, sort), pagination.pageToken, options.cursorSecret, options.cursorScope);
    } catch (error) {
      if (error instanceof CursorError) fail(name, error.message);
      throw error;
    }
  }
  return { filter, sort, pagination };
}

function parsePagination(query: Record<string, unknown>, style: ListStyle, sort: readonly string[]): PaginationRequest {
  switch (style) {
    case 'cursor': {
      const name = query['pageToken'] !== undefined ? 'pageToken' : 'cursor';
      const token = query[name] === undefined ? null : single(name, query[name]);
      // The first page is asked for by leaving the token out; an empty one is a client's bug, not a request.
      if (token === '') fail(name, 'must not be empty; omit it for the first page');
      return {
        style,
        pageSize: integerParam(query, 'pageSize') ?? LISTING_LIMITS.pageSize.default,
        pageToken: token,
      };
    }
    case 'page':
      return {
        style,
        page: integerParam(query, 'page') ?? LISTING_LIMITS.page.default,
        size: integerParam(query, 'size') ?? LISTING_LIMITS.size.default,
      };
    case 'keyset': {
      if (sort.length > 0 && !(sort.length === 1 && sort[0] === 'id')) {
        fail('sort', 'keyset pagination (lastSeenId) is always ordered by id');
      }
      const lastSeenId = query['lastSeenId'] === undefined ? undefined : integerParam(query, 'lastSeenId');
      return { style, lastSeenId: lastSeenId ?? 0, limit: integerParam(query, 'limit') ?? LISTING_LIMITS.limit.default };
    }
    case 'offset': {
      const offset = integerParam(query, 'offset') ?? (query['skip'] !== undefined ? skipParam(query) : 0);
      return { style, offset, limit: integerParam(query, 'limit') ?? LISTING_LIMITS.limit.default };
    }
  }
}

function skipParam(query: Record<string, unknown>): number {
  const { min, max } = LISTING_LIMITS.offset;
  const message = `must be an integer from ${min} to ${max}`;
  const text = single('skip', query['skip']);
  if (!/^-?\d{1,16}$/.test(text)) return fail('skip', message);
  const value = Number(text);
  return Number.isSafeInteger(value) && value >= min && value <= max ? value : fail('skip', message);
}

export interface ConnectionVariables {
  first: number;
  after: string | null;
  offset: number | null;
  filter: FilterInput;
  sort: string[];
  /** Select `totalCount` (`@include(if: $withTotal)`) only for the envelope styles that show it. */
  withTotal: boolean;
}

export function toConnectionVariables(query: ListQuery): ConnectionVariables {
  const { filter, sort, pagination } = query;
  switch (pagination.style) {
    case 'cursor':
      return { first: pagination.pageSize, after: pagination.pageToken, offset: null, filter, sort, withTotal: true };
    case 'page':
      return { first: pagination.size, after: null, offset: (pagination.page - 1) * pagination.size, filter, sort, withTotal: true };
    case 'keyset': {
      const id = filter['id'] ?? {};
      const gt = typeof id.gt === 'number' ? Math.max(id.gt, pagination.lastSeenId) : pagination.lastSeenId;
      return { first: pagination.limit, after: null, offset: null, filter: { ...filter, id: { ...id, gt } }, sort: ['id'], withTotal: false };
    }
    case 'offset':
      return { first: pagination.limit, after: null, offset: pagination.offset, filter, sort, withTotal: false };
  }
}

/** Envelope variant A (page/size). */
export interface PageEnvelope<R> {
  items: R[];
  total: number;
  page: number;
  size: number;
}

/** Envelope variant B (cursor). */
export interface CursorEnvelope<R> {
  data: R[];
  pagination: { nextPageToken: string | null; totalCount: number; pageSize: number };
}

export function toRestListBody<N, R>(
  query: ListQuery,
  connection: { nodes: N[]; pageInfo: PageInfo; totalCount?: number | null },
  toRest: (node: N) => R,
): R[] | PageEnvelope<R> | CursorEnvelope<R> {
  const records = connection.nodes.map(toRest);
  const { pagination } = query;
  switch (pagination.style) {
    case 'page':
      return { items: records, total: connection.totalCount ?? 0, page: pagination.page, size: pagination.size };
    case 'cursor':
      return {
        data: records,
        pagination: {
          nextPageToken: connection.pageInfo.hasNextPage && records.length > 0 ? connection.pageInfo.endCursor : null,
          totalCount: connection.totalCount ?? 0,
          pageSize: pagination.pageSize,
        },
      };
    case 'keyset':
    case 'offset':
      return records;
  }
}
