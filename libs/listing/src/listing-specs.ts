/**
 * What each collection lets clients filter and sort on (docs/interface.md#filters-and-sort), with the REST name, the
 * GraphQL name and the MongoDB path of each field. REST and the subgraphs both read these; nothing else lists fields.
 */
export type FieldType = 'string' | 'integer' | 'number' | 'boolean';

export interface ListingField {
  /** Name in REST query strings (snake_case), e.g. `owner_id`. */
  rest: string;
  /** Name in GraphQL filter inputs and sort keys (camelCase), e.g. `ownerId`. */
  graphql: string;
  /** Path of the stored field in the MongoDB document, e.g. `ownerId`; `_id` for ids. */
  path: string;
  type: FieldType;
  /** Allowed values, for enumerations such as `role`. */
  values?: readonly string[];
  /**
   * Converts a typed API value into its stored form for queries and cursors (e.g. currency units -> integer cents).
   * Absent means the value is stored as given.
   */
  toStored?: (value: number) => number;
}

export interface ListingSpec {
  resource: 'users' | 'items' | 'posts' | 'comments';
  /** Filterable and sortable fields, `id` included (always sortable; the final tie-breaker). */
  fields: readonly ListingField[];
}

/** Currency units -> cents without binary-float noise (19.99 * 100 = 1998.9999999999998 -> 1999); 10.005 -> 1000.5. */
export const unitsToCents = (units: number): number => Number((units * 100).toFixed(6));

const id: ListingField = { rest: 'id', graphql: 'id', path: '_id', type: 'integer' };

/** A field named alike in REST, GraphQL and the stored document (`title`). */
const same = (name: string, type: FieldType, values?: readonly string[]): ListingField => ({
  rest: name,
  graphql: name,
  path: name,
  type,
  ...(values ? { values } : {}),
});

/** A field whose REST name is the snake_case of its GraphQL name and stored path (`owner_id` / `ownerId`). */
const snake = (name: string, type: FieldType): ListingField => ({
  ...same(name, type),
  rest: name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
});

export const LISTINGS = {
  users: {
    resource: 'users',
    fields: [
      id,
      same('username', 'string'),
      same('email', 'string'),
      same('role', 'string', ['admin', 'member', 'viewer']),
      snake('isActive', 'boolean'),
    ],
  },
  items: {
    resource: 'items',
    fields: [
      id,
      same('name', 'string'),
      // Stored as integer cents (no float loss); filter values are given in currency units.
      { rest: 'price', graphql: 'price', path: 'priceCents', type: 'number', toStored: unitsToCents },
      snake('ownerId', 'integer'),
    ],
  },
  posts: {
    resource: 'posts',
    fields: [id, snake('authorId', 'integer'), same('title', 'string')],
  },
  comments: {
    resource: 'comments',
    fields: [id, snake('authorId', 'integer')],
  },
} as const satisfies Record<string, ListingSpec>;
