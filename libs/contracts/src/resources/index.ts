/**
 * The five resource declarations and what derives from them (docs/decisions/0022-resource-declarations.md). The
 * facade and the subgraphs import them from here; the build evaluates `subgraphSdl` and `facadeResourceDocuments` through
 * tools/graphql-sdl.cjs and tools/codegen.mjs.
 */
import { apiKeys } from './api-keys';
import { items } from './items';
import { comments, posts } from './posts';
import { users } from './users';
import { facadeDocuments, type ResourceOperations } from './graphql-documents';
import { resourcesSdl, type SdlPart } from './graphql-schema';
import type { Resource } from './resource';
import { expandableRelations } from './expansions';

export const RESOURCES = { users, items, posts, comments, apiKeys } as const;
export type ResourceName = keyof typeof RESOURCES;

/** What the facade sends for each resource (the rest of its documents are in apps/rest/src/operations/*.graphql). */
const FACADE_OPERATIONS: Record<ResourceName, ResourceOperations> = {
  users: {
    one: 'user',
    list: 'users',
    writes: { create: true, replace: true, update: true, delete: true },
    inputOf: { replace: 'update' },
    getVariables: { includeInactive: 'Boolean' },
  },
  items: { one: 'item', list: 'items', writes: { create: true, replace: true, update: true, delete: true } },
  posts: {
    one: 'post',
    list: 'posts',
    writes: { create: true, replace: true, update: true, delete: true },
    inputOf: { replace: 'create' },
  },
  comments: { one: 'comment', list: 'comments', parent: 'postId', writes: { create: true, update: true, delete: true } },
  apiKeys: { one: 'apiKey', writes: { update: true } },
};

/** The facade's generated documents: each resource's fragment, listing page and record operations. */
export const facadeResourceDocuments = (): string =>
  facadeDocuments(Object.entries(RESOURCES).map(([name, resource]) => [resource as Resource, FACADE_OPERATIONS[name as ResourceName]]));

/** The SDL of a part of the named resources (`# @resource types posts comments` in a subgraph's schema.graphql). */
export function subgraphSdl(part: SdlPart, names: readonly string[]): string {
  return resourcesSdl(
    part,
    names.map((name) => {
      const found = (RESOURCES as Record<string, Resource>)[name];
      if (!found) throw new Error(`# @resource: no resource named ${name} (${Object.keys(RESOURCES).join(', ')})`);
      return found;
    }),
  );
}

export { resource, type Resource, type Field, type StoredDocument, type WriteOperation, type FieldRead } from './resource';
export { restSchemas, shownFields, writableFields } from './rest-schemas';
export { graphqlInputSchema } from './graphql-inputs';
export { users, Password, ResetPassword, USERNAME_MIN, PASSWORD_MIN, type ResetPasswordInput } from './users';
export { items, toCents, fromCents, unitsToCents, hasAtMostTwoDecimals } from './items';
export { posts, comments } from './posts';
export { apiKeys, API_KEYS_PER_USER_MAX } from './api-keys';
export { representation, storedRepresentation, graphqlInput, type Represented } from './rest-representation';
export {
  EXPAND_MAX_DEPTH,
  EXPANDED_LIST_SIZE,
  expandablePaths,
  graphqlSelection,
  parseSelection,
  restPathOf,
  selectedRepresentation,
  selectedSchema,
  selectionKey,
  sparseFields,
  type ExpandableRelation,
  type Selection,
} from './expansions';

/** What REST can expand on each resource: its references' relations, the inverse lists on it, its children. */
export const relationsOf = expandableRelations(Object.values(RESOURCES) as Resource[]);
