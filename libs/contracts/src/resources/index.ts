/**
 * The five resource declarations and what derives from them (docs/decisions/0022-resource-declarations.md). The
 * facade and the subgraphs import them from here.
 */
import { apiKeys } from './api-keys';
import { items } from './items';
import { comments, posts } from './posts';
import { users } from './users';

export const RESOURCES = { users, items, posts, comments, apiKeys } as const;

export { resource, type Resource, type Field, type StoredDocument, type WriteOperation, type FieldRead } from './resource';
export { restSchemas, shownFields, writableFields } from './rest-schemas';
export { graphqlInputSchema } from './graphql-inputs';
export { users, Password, ResetPassword, USERNAME_MIN, PASSWORD_MIN, type ResetPasswordInput } from './users';
export { items, toCents, fromCents, unitsToCents, hasAtMostTwoDecimals } from './items';
export { posts, comments } from './posts';
export { apiKeys, API_KEYS_PER_USER_MAX } from './api-keys';
export { representation, storedRepresentation, graphqlInput, type Represented } from './rest-representation';
