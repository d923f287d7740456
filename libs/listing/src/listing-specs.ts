/**
 * What each collection lets clients filter and sort on (docs/interface.md#filters-and-sort), with the REST name, the
 * GraphQL name and the MongoDB path of each field: derived from the resource declarations (the fields they mark `listed`).
 * REST and the subgraphs both read these; nothing else lists fields.
 */
import { comments, items, posts, users, type Field, type Resource } from '@platform/contracts';

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

const TYPES: Partial<Record<Field['kind'], FieldType>> = {
  id: 'integer',
  reference: 'integer',
  string: 'string',
  enum: 'string',
  decimal: 'number',
  boolean: 'boolean',
};

/** A listed field of a declaration as listings read it. */
function listingField(resource: Resource, field: Field): ListingField {
  const type = TYPES[field.kind];
  if (!type || field.rest === null || field.stored === null) {
    throw new Error(`${resource.type}.${field.key} cannot be listed (a ${field.kind} field shown in REST and stored)`);
  }
  // A number's stored form (cents); other kinds are compared as given.
  const toStored =
    field.listed?.toStored ?? (field.kind === 'decimal' ? (field.toStored as ((value: number) => number) | undefined) : undefined);
  return {
    rest: field.rest,
    graphql: field.key,
    path: field.stored,
    type,
    ...(field.listed?.values ? { values: field.listed.values } : {}),
    ...(toStored ? { toStored } : {}),
  };
}

/** The listing of a declared resource: its listed fields, the id first, in the order the declaration lists them. */
export const listingSpec = (resource: Resource & { name: ListingSpec['resource'] }): ListingSpec => ({
  resource: resource.name,
  fields: resource.listed.map((field) => listingField(resource, field)),
});

export const LISTINGS = {
  users: listingSpec(users),
  items: listingSpec(items),
  posts: listingSpec(posts),
  comments: listingSpec(comments),
} as const satisfies Record<ListingSpec['resource'], ListingSpec>;
