/**
 * One listing library for every collection: typed filters, four pagination styles, sorting and HMAC-signed cursors.
 *
 * REST side:    parseRestListQuery (query string -> ListQuery, client errors naming the parameter),
 *               toConnectionVariables (ListQuery -> GraphQL variables), toRestListBody (connection -> array or envelope),
 *               listLinks (the RFC 8288 Link header: first, prev, next),
 *               listingQuerySchema (the zod schema OpenAPI documents for a collection's listing parameters).
 * Subgraph side: planMongoList (ConnectionArgs -> MongoListPlan, validated), toConnection (documents -> nodes + pageInfo).
 */
export { LISTINGS, listingSpec, type ListingSpec, type ListingField, type FieldType } from './listing-specs';
export type {
  FilterOperator,
  ScalarValue,
  FilterInput,
  PaginationRequest,
  ListQuery,
  ConnectionArgs,
  PageInfo,
  MongoListPlan,
} from './listing-types';
export { deriveCursorSecret, type CursorSecret } from './cursor-codec';
export { parentScope } from './cursor-binding';
export {
  parseRestListQuery,
  toConnectionVariables,
  toRestListBody,
  LISTING_LIMITS,
  STYLE_PARAMETERS,
  type RestListOptions,
  type ListStyle,
  type ConnectionVariables,
  type PageEnvelope,
  type CursorEnvelope,
} from './rest-list-query';
export {
  listingQuerySchema,
  listingParameterGroups,
  LISTING_PARAMETER,
  pageEnvelopeSchema,
  cursorEnvelopeSchema,
} from './listing-openapi';
export {
  planMongoList,
  toConnection,
  listIndexes,
  DEFAULT_FIRST,
  MAX_FIRST,
  MAX_FACADE_FIRST,
  type Connection,
} from './mongo-list-plan';
export { parseNestedFirst, MAX_NESTED_FIRST } from './nested-first';
export { listLinks, type ListPosition } from './list-links';
