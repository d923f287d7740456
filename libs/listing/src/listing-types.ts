/** The transport-neutral shapes of a listing request, shared by the REST facade and the subgraphs. */

export type FilterOperator = 'eq' | 'lt' | 'gt' | 'in';
export type ScalarValue = string | number | boolean;

/**
 * GraphQL-shaped filter keyed by GraphQL field name: `{ price: { gt: 10 }, role: { in: ['admin', 'viewer'] } }`.
 * Several fields and operators combine with AND.
 */
export type FilterInput = Record<string, Partial<Record<FilterOperator, ScalarValue | ScalarValue[]>>>;

/**
 * The pagination style a REST request chose (docs/interface.md#pagination: precedence cursor, page, keyset, offset).
 */
export type PaginationRequest =
  | { style: 'cursor'; pageSize: number; pageToken: string | null }
  | { style: 'page'; page: number; size: number }
  | { style: 'keyset'; lastSeenId: number; limit: number }
  | { style: 'offset'; offset: number; limit: number };

export interface ListQuery {
  filter: FilterInput;
  /** GraphQL sort keys, `price` ascending or `-price` descending; `id` is appended as the tie-breaker. */
  sort: string[];
  pagination: PaginationRequest;
}

/** Arguments of every root list field / connection in the subgraphs. */
export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  offset?: number | null;
  /** A FilterInput once planMongoList validated it; as GraphQL gives it, each field and operator may be null. */
  filter?: unknown;
  sort?: readonly string[] | null;
}

export interface PageInfo {
  endCursor: string | null;
  hasNextPage: boolean;
}

/** What a subgraph's repository executes: a plain MongoDB filter, sort, skip and limit (one more than the page). */
export interface MongoListPlan {
  filter: Record<string, unknown>;
  sort: Array<[string, 1 | -1]>;
  skip: number;
  limit: number;
  /** The page size the client asked for (limit - 1). */
  pageSize: number;
  /** The filter without the cursor condition: what `totalCount` counts (the whole filtered set, not what is left). */
  countFilter: Record<string, unknown>;
}
