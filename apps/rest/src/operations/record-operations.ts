/**
 * The fixed documents every record type's routes send, built one way: a root listing as a connection, and the
 * versioned writes (`expectedVersion` carries If-Match to the owning subgraph). Variables carry every value, so the
 * gateway's plan cache hits and the trusted-documents manifest lists each document once.
 */
import { operation, type Operation } from '../gateway/gateway-client';

export interface Connection<N> {
  nodes: N[];
  pageInfo: { endCursor: string | null; hasNextPage: boolean };
  totalCount?: number | null;
}

/** The variables and arguments of every root listing, and what a page selects (totalCount only when asked for). */
export const LIST_VARIABLES = '$first: Int, $after: String, $offset: Int, $sort: [String!], $withTotal: Boolean!';
export const LIST_ARGS = 'first: $first, after: $after, offset: $offset, filter: $filter, sort: $sort';
export const PAGE = 'pageInfo { endCursor hasNextPage } totalCount @include(if: $withTotal)';

/** `query ListItems(...) { items(...) { nodes { fields } pageInfo totalCount } }`, with the parent (`postId`) when given. */
export function listOperation<F extends string, N>(
  name: string,
  field: F,
  filterType: string,
  fields: string,
  parent?: string,
): Operation<Record<F, Connection<N>>> {
  const [variable, argument] = parent ? [`$${parent}: ID!, `, `${parent}: $${parent}, `] : ['', ''];
  return operation(
    name,
    `query ${name}(${variable}${LIST_VARIABLES}, $filter: ${filterType}) { ${field}(${argument}${LIST_ARGS}) { nodes { ${fields} } ${PAGE} } }`,
  );
}

/**
 * `mutation UpdateItem($id, $input, $expectedVersion) { updateItem(...) { fields } }` from the verb and the record's
 * name (`Update`, `Item`); `parent` (e.g. postId) optional. The data has the one root field the routes read.
 */
export function versionedWrite<N>(
  verb: 'Replace' | 'Update',
  label: string,
  inputType: string,
  fields: string,
  parent?: string,
): Operation<Record<string, N>> {
  const [name, field] = [`${verb}${label}`, `${verb.toLowerCase()}${label}`];
  const [variable, argument] = parent ? [`$${parent}: ID, `, `${parent}: $${parent}, `] : ['', ''];
  return operation(
    name,
    `mutation ${name}($id: ID!, ${variable}$input: ${inputType}!, $expectedVersion: Int) { ${field}(id: $id, ${argument}input: $input, expectedVersion: $expectedVersion) { ${fields} } }`,
  );
}

/** `mutation DeleteItem($id, $expectedVersion) { deleteItem(...) }`; `parent` (e.g. postId) optional. */
export function versionedDelete(label: string, parent?: string): Operation<Record<string, boolean>> {
  const [variable, argument] = parent ? [`, $${parent}: ID`, `, ${parent}: $${parent}`] : ['', ''];
  return operation(
    `Delete${label}`,
    `mutation Delete${label}($id: ID!${variable}, $expectedVersion: Int) { delete${label}(id: $id${argument}, expectedVersion: $expectedVersion) }`,
  );
}

/** `mutation CreateItem($input: CreateItemInput!) { createItem(input: $input) { fields } }`; `parent` (postId) optional. */
export function createOperation<N>(label: string, fields: string, parent?: string): Operation<Record<string, N>> {
  const [variable, argument] = parent ? [`$${parent}: ID!, `, `${parent}: $${parent}, `] : ['', ''];
  return operation(
    `Create${label}`,
    `mutation Create${label}(${variable}$input: Create${label}Input!) { create${label}(${argument}input: $input) { ${fields} } }`,
  );
}

/** An action on one record by id: `mutation LikePost($id: ID!) { likePost(id: $id) { fields } }`. */
export function idMutation<N>(name: string, fields: string): Operation<Record<string, N>> {
  const field = `${name.charAt(0).toLowerCase()}${name.slice(1)}`;
  return operation(name, `mutation ${name}($id: ID!) { ${field}(id: $id) { ${fields} } }`);
}
