/**
 * The facade's GraphQL documents for a resource, derived from its declaration: the fragment of the fields its REST
 * representation reads (`ItemFields`, with `version` for the ETag), the page of a listing (`ItemPage`), and the
 * operations every record route sends (`GetItem`, `ListItems`, `CreateItem`, `ReplaceItem`, `UpdateItem`,
 * `DeleteItem`). tools/codegen.mjs writes them into apps/rest/src/operations/__generated__/resources.graphql before
 * generating their types; a field added to a declaration reaches the facade's selections with no document edited.
 */
import type { Field, Resource, WriteOperation } from './resource';
import { connectionTypeName, filterTypeName, inputTypeName, isListed } from './graphql-schema';

/** What one resource's operations are called on the root types, and which of them the facade sends. */
export interface ResourceOperations {
  /** `item`: `item(id)`, `createItem`, ...; the list is `items`. */
  one: string;
  list?: string;
  /** The write mutations the facade sends, by operation (a post is replaced with its CreatePostInput). */
  writes: Partial<Record<WriteOperation | 'delete', true>>;
  /** The input type a write takes when it is not the operation's own (`replacePost(input: CreatePostInput!)`). */
  inputOf?: Partial<Record<WriteOperation, WriteOperation>>;
  /** The parent's argument of records addressed under another (`postId`: `comment(id, postId)`). */
  parent?: string;
  /** A GraphQL variable a GET passes on, with its type (`includeInactive: Boolean` for a user). */
  getVariables?: Readonly<Record<string, string>>;
}

export const fragmentName = (resource: Resource): string => `${resource.type}Fields`;
const pageName = (resource: Resource): string => `${resource.type}Page`;
const capital = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** The GraphQL fields the REST representation reads: what it shows, its views' fields, and the version. */
export function selectedFields(resource: Resource): Field[] {
  const viewKeys = new Set(Object.values(resource.views ?? {}).flatMap((view) => Object.values(view.fields)));
  return resource.fields.filter(
    (field) =>
      field.graphql &&
      field.shown !== false &&
      (field.kind === 'version' || (field.rest !== null && (field.output !== undefined || viewKeys.has(field.key)))),
  );
}

const fragment = (resource: Resource): string =>
  `fragment ${fragmentName(resource)} on ${resource.type} {\n${selectedFields(resource)
    .map((field) => `  ${field.key}\n`)
    .join('')}}\n`;

const page = (resource: Resource): string =>
  `fragment ${pageName(resource)} on ${connectionTypeName(resource)} {\n` +
  `  nodes {\n    ...${fragmentName(resource)}\n  }\n` +
  '  pageInfo {\n    ...PageFields\n  }\n' +
  '  totalCount @include(if: $withTotal)\n}\n';

/** `($id: ID!, $postId: ID)` / `id: $id, postId: $postId`. */
const args = (pairs: ReadonlyArray<readonly [string, string]>) => ({
  declared: pairs.length === 0 ? '' : `(${pairs.map(([name, type]) => `$${name}: ${type}`).join(', ')})`,
  passed: pairs.length === 0 ? '' : `(${pairs.map(([name]) => `${name}: $${name}`).join(', ')})`,
});

function operation(kind: 'query' | 'mutation', name: string, field: string, pairs: Array<[string, string]>, selection?: string): string {
  const { declared, passed } = args(pairs);
  const body = selection ? ` {\n    ...${selection}\n  }` : '';
  return `${kind} ${name}${declared} {\n  ${field}${passed}${body}\n}\n`;
}

function operations(resource: Resource, ops: ResourceOperations): string[] {
  const Type = capital(ops.one);
  const fields = fragmentName(resource);
  const parent = ops.parent;
  const documents: string[] = [];
  const idArgs = (parentType: string): Array<[string, string]> => [['id', 'ID!'], ...(parent ? [[parent, parentType] as [string, string]] : [])];
  documents.push(
    operation('query', `Get${Type}`, ops.one, [...idArgs('ID'), ...Object.entries(ops.getVariables ?? {})], fields),
  );
  if (ops.list && isListed(resource)) {
    const pairs: Array<[string, string]> = [
      ...(parent ? [[parent, 'ID!'] as [string, string]] : []),
      ['first', 'Int'],
      ['after', 'String'],
      ['offset', 'Int'],
      ['filter', filterTypeName(resource)],
      ['sort', '[String!]'],
    ];
    const { declared, passed } = args(pairs);
    documents.push(
      `query List${capital(ops.list)}${declared.slice(0, -1)}, $withTotal: Boolean!) {\n` +
        `  ${ops.list}${passed} {\n    ...${pageName(resource)}\n  }\n}\n`,
    );
  }
  const input = (operation: WriteOperation) => inputTypeName(resource, ops.inputOf?.[operation] ?? operation);
  if (ops.writes.create) {
    documents.push(
      operation('mutation', `Create${Type}`, `create${Type}`, [...(parent ? [[parent, 'ID!'] as [string, string]] : []), ['input', `${input('create')}!`]], fields),
    );
  }
  for (const write of ['replace', 'update'] as const) {
    if (!ops.writes[write]) continue;
    const name = `${capital(write)}${Type}`;
    documents.push(
      operation('mutation', name, `${write}${Type}`, [...idArgs('ID'), ['input', `${input(write)}!`], ['expectedVersion', 'Int']], fields),
    );
  }
  if (ops.writes.delete) {
    documents.push(operation('mutation', `Delete${Type}`, `delete${Type}`, [...idArgs('ID'), ['expectedVersion', 'Int']]));
  }
  return documents;
}

/** Every resource's fragments and operations, one document (codegen types each operation with its fragments). */
export function facadeDocuments(entries: ReadonlyArray<readonly [Resource, ResourceOperations | undefined]>): string {
  const header =
    '# Generated from the resource declarations (libs/contracts/src/resources) by tools/codegen.mjs; do not edit.\n\n';
  const parts = entries.flatMap(([resource, ops]) => [
    fragment(resource),
    ...(isListed(resource) && ops?.list ? [page(resource)] : []),
    ...(ops ? operations(resource, ops) : []),
  ]);
  return header + ['fragment PageFields on PageInfo {\n  endCursor\n  hasNextPage\n}\n', ...parts].join('\n');
}
