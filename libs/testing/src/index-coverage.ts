/**
 * Which index serves a query: each recorded read or write command is reduced to its shape (collection, equality
 * fields, sort fields, range fields; one shape per `$or` branch) and matched against the collection's indexes by the
 * ESR rule (docs/performance.md, "Indexes"): the index starts with the equality fields (any order), then the sort
 * fields in order (all in the index's direction or all reversed); range fields may follow, and lead only when there is
 * neither equality nor sort. A unique index (`_id` included) whose every field is pinned by equality serves any shape:
 * it finds at most one document. A shape with no field at all reads the whole collection whatever the indexes.
 */
import type { Document } from 'mongodb';
import type { RecordedCommand } from './mongo-wire-recorder';

export interface QueryShape {
  db: string;
  collection: string;
  /** The command that carried it (find, aggregate, count, distinct, update, delete, findAndModify). */
  command: string;
  equality: string[];
  sort: Array<[string, 1 | -1]>;
  range: string[];
}

export interface IndexKey {
  name: string;
  key: Array<[string, number]>;
  /** A unique index (listIndexes' `unique`; the `_id` index always is). */
  unique?: boolean;
}

/** Operators that pin a field to one value or a set of values (an index seek per value). */
const EQUALITY_OPERATORS = new Set(['$eq', '$in']);

const isPlainObject = (value: unknown): value is Document =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;

interface Conditions {
  equality: Set<string>;
  range: Set<string>;
}

/** A filter as its alternatives (one per combination of `$or` branches), each with its equality and range fields. */
function conditionsOf(filter: Document): Conditions[] {
  let alternatives: Conditions[] = [{ equality: new Set(), range: new Set() }];
  const combine = (branches: Conditions[]) => {
    alternatives = alternatives.flatMap((a) =>
      branches.map((b) => ({ equality: new Set([...a.equality, ...b.equality]), range: new Set([...a.range, ...b.range]) })),
    );
  };
  for (const [field, value] of Object.entries(filter)) {
    if (field === '$and') {
      for (const part of value as Document[]) combine(conditionsOf(part));
    } else if (field === '$or') {
      combine((value as Document[]).flatMap((branch) => conditionsOf(branch)));
    } else if (field === '$comment') {
      continue;
    } else if (field.startsWith('$')) {
      // $nor, $expr, $where, $text: no index seek; recorded as a range over a field no index has.
      combine([{ equality: new Set(), range: new Set([field]) }]);
    } else {
      const operators = isPlainObject(value) ? Object.keys(value) : [];
      const byOperator = operators.length > 0 && operators.every((op) => op.startsWith('$'));
      const equality = !byOperator || operators.every((op) => EQUALITY_OPERATORS.has(op));
      combine([{ equality: new Set(equality ? [field] : []), range: new Set(equality ? [] : [field]) }]);
    }
  }
  return alternatives;
}

const sortOf = (sort: unknown): Array<[string, 1 | -1]> =>
  isPlainObject(sort) ? Object.entries(sort).map(([field, dir]) => [field, Number(dir) < 0 ? -1 : 1]) : [];

/** The filter and sort a command applies to its collection; [] for commands that read nothing by a filter. */
function filtersOf(command: RecordedCommand): Array<{ filter: Document; sort: Array<[string, 1 | -1]> }> {
  const body = command.body;
  switch (command.name) {
    case 'find':
      return [{ filter: (body['filter'] as Document | undefined) ?? {}, sort: sortOf(body['sort']) }];
    case 'findAndModify':
      return [{ filter: (body['query'] as Document | undefined) ?? {}, sort: sortOf(body['sort']) }];
    case 'count':
    case 'distinct':
      return [{ filter: (body['query'] as Document | undefined) ?? {}, sort: [] }];
    case 'update':
      return ((body['updates'] as Document[] | undefined) ?? []).map((u) => ({ filter: (u['q'] as Document | undefined) ?? {}, sort: [] }));
    case 'delete':
      return ((body['deletes'] as Document[] | undefined) ?? []).map((d) => ({ filter: (d['q'] as Document | undefined) ?? {}, sort: [] }));
    case 'aggregate': {
      // The leading $match and $sort stages are what an index can serve.
      let filter: Document = {};
      let sort: Array<[string, 1 | -1]> = [];
      for (const stage of (body['pipeline'] as Document[] | undefined) ?? []) {
        if (stage['$match'] && sort.length === 0) filter = { $and: [filter, stage['$match'] as Document] };
        else if (stage['$sort']) sort = sortOf(stage['$sort']);
        else break;
      }
      return [{ filter, sort }];
    }
    default:
      return [];
  }
}

/** Every query shape a command carries (one per update/delete statement and per `$or` alternative). */
export function shapesOf(command: RecordedCommand): QueryShape[] {
  const collection = String(command.body[command.name] ?? '');
  return filtersOf(command).flatMap(({ filter, sort }) =>
    conditionsOf(filter).map((c) => ({
      db: command.db,
      collection,
      command: command.name,
      equality: [...c.equality].sort(),
      sort,
      range: [...c.range].filter((f) => !c.equality.has(f)).sort(),
    })),
  );
}

/** `api_items.items find eq(ownerId) sort(_id) range()`: one line per distinct shape. */
export const shapeKey = (shape: QueryShape): string =>
  `${shape.db}.${shape.collection} ${shape.command} eq(${shape.equality.join(',')}) sort(${shape.sort
    .map(([f, d]) => (d < 0 ? `-${f}` : f))
    .join(',')}) range(${shape.range.join(',')})`;

/** Reads the whole collection whatever the indexes: no filter field and no sort. */
export const isWholeCollection = (shape: QueryShape): boolean =>
  shape.equality.length === 0 && shape.sort.length === 0 && shape.range.length === 0;

/** Whether one index serves the shape by the ESR rule (module comment). */
export function serves(index: IndexKey, shape: QueryShape): boolean {
  const fields = index.key.map(([field]) => field);
  const unique = index.unique === true || index.name === '_id_';
  if (unique && fields.length > 0 && fields.every((f) => shape.equality.includes(f))) return true;
  const leading = new Set(fields.slice(0, shape.equality.length));
  if (shape.equality.some((f) => !leading.has(f))) return false;
  // Sorting on a field pinned by equality is free; the rest of the sort must follow the equality prefix.
  const sort = shape.sort.filter(([field]) => !shape.equality.includes(field));
  const next = index.key.slice(shape.equality.length, shape.equality.length + sort.length);
  if (next.length < sort.length || sort.some(([field], i) => next[i]?.[0] !== field)) return false;
  if (sort.length > 0) {
    const same = sort.every(([, dir], i) => Math.sign(Number(next[i]?.[1])) === dir);
    const reversed = sort.every(([, dir], i) => Math.sign(Number(next[i]?.[1])) === -dir);
    if (!same && !reversed) return false;
  }
  if (shape.equality.length === 0 && sort.length === 0) return fields[0] !== undefined && shape.range.includes(fields[0]);
  return true;
}

/** The first index (listIndexes order) that serves the shape, or null. */
export const servingIndex = (indexes: readonly IndexKey[], shape: QueryShape): IndexKey | null =>
  indexes.find((index) => serves(index, shape)) ?? null;
