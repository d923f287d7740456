/**
 * What each collection lets clients filter and sort on (CONTRACT.md "Listings"), with the REST name, the GraphQL
 * name and the MongoDB path of each field. REST and the subgraphs both read these; nothing else lists fields.
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

export const LISTINGS = {
  users: {
    resource: 'users',
    fields: [
      id,
      { rest: 'username', graphql: 'username', path: 'username', type: 'string' },
      { rest: 'email', graphql: 'email', path: 'email', type: 'string' },
      { rest: 'role', graphql: 'role', path: 'role', type: 'string', values: ['admin', 'member', 'viewer'] },
      { rest: 'is_active', graphql: 'isActive', path: 'isActive', type: 'boolean' },
    ],
  },
  items: {
    resource: 'items',
    fields: [
      id,
      { rest: 'name', graphql: 'name', path: 'name', type: 'string' },
      // Stored as integer cents (no float loss); filter values are given in currency units.
      { rest: 'price', graphql: 'price', path: 'priceCents', type: 'number', toStored: unitsToCents },
      { rest: 'owner_id', graphql: 'ownerId', path: 'ownerId', type: 'integer' },
    ],
  },
  posts: {
    resource: 'posts',
    fields: [
      id,
      { rest: 'author_id', graphql: 'authorId', path: 'authorId', type: 'integer' },
      { rest: 'title', graphql: 'title', path: 'title', type: 'string' },
    ],
  },
  comments: {
    resource: 'comments',
    fields: [id, { rest: 'author_id', graphql: 'authorId', path: 'authorId', type: 'integer' }],
  },
} as const satisfies Record<string, ListingSpec>;
