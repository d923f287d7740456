/**
 * `expand` and `fields` on the facade's reads (docs/decisions/0027-rest-expand-fields-compression.md): the two query
 * parameters, documented per route with the enum of what its resource can expand; a request's selection (parsed from
 * the declarations: only declared names get through) as ONE operation, the route's own document with its record
 * fragment (`ItemFields`) replaced by the selection's GraphQL text; that operation checked against the GraphQL limits
 * (depth, and cost by GraphQL Armor's own rule with the request's page size) before it is sent; the errors it meets
 * named by their REST path (`owner.email`); and its representation. The documents are kept per shape (a closed set:
 * declared names, bounded depth), so the executor's parse, validation and plan caches hit as for the fixed documents.
 */
import { createHash } from 'node:crypto';
import { parse, print, visit, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { measureOperation } from '@platform/graphql-cost';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import {
  EXPAND_MAX_DEPTH,
  EXPANDED_LIST_SIZE,
  expandablePaths,
  graphqlSelection,
  parseSelection,
  relationsOf,
  restPathOf,
  selectedRepresentation,
  selectedSchema,
  selectionKey,
  type Represented,
  type Resource,
  type Selection,
} from '@platform/contracts';
import { AppError } from '@platform/errors';
import type { RestEnvironment } from '../environment';
import type { ErrorTranslation, Operation } from '../gateway/gateway-client';

/** A repeatable, comma-separated list parameter (`expand`, `fields`), documented as an array of its names. */
const listOf = (meta: Record<string, unknown>) =>
  z
    .union([z.string().max(2_000), z.array(z.string().max(2_000)).max(50)])
    .optional()
    .meta({ anyOf: undefined, ...meta });

/**
 * The `fields` parameter of a read whose records have the fields `names` (`nesting`: what dotted names mean there);
 * `selectable`: every name it takes (the document's enum, so a schema-valid name is one the server takes), `names` when
 * absent.
 */
export function fieldsParameter(
  names: readonly string[],
  nesting?: string,
  selectable: readonly string[] = names,
) {
  return listOf({
    type: 'array',
    items: { type: 'string', enum: [...selectable] },
    maxItems: 50,
    description:
      `Sparse fieldset: the fields to answer, repeatable or comma-separated (\`fields=id,name\`); \`id\` is always there. ` +
      `${nesting ? `${nesting} ` : ''}Fields: ${names.join(', ')}. An unknown field is 400 naming it.`,
  });
}

/** The query parameters of a read that takes a selection, for its route's query schema (and OpenAPI). */
export function selectionParameters(resource: Resource, view?: Readonly<Record<string, string>>) {
  const paths = expandablePaths(resource, relationsOf);
  const own = view ? Object.keys(view) : undefined;
  return {
    ...(paths.length > 0
      ? {
          expand: listOf({
            type: 'array',
            items: { type: 'string', enum: paths },
            maxItems: 50,
            description:
              `Related records to include, in the answer under the relation's name: ${[...relationsOf(resource).keys()].map((name) => `\`${name}\``).join(', ')}; ` +
              `dotted for nesting (\`${paths.find((path) => path.includes('.')) ?? paths[0]}\`), at most ${EXPAND_MAX_DEPTH} levels. Repeatable or ` +
              `comma-separated. An expanded list holds its first ${EXPANDED_LIST_SIZE} records in id order; a record the caller may not ` +
              'see (an inactive user) is null. Each is authorized as if read on its own: a missing scope is 403 naming it; an unknown ' +
              'name 400; beyond the GraphQL depth or cost limits 400.',
          }),
        }
      : {}),
    fields: fieldsParameter(
      own ?? ownFieldNames(resource),
      `Dotted for an expanded record's fields (\`owner.email\`, which expands \`owner\`), also deeper, down to ` +
        `${EXPAND_MAX_DEPTH} relations (\`owner.items.name\`: taken, not enumerated); a relation's name expands it whole.`,
      selectableFieldNames(resource, own ?? ownFieldNames(resource)),
    ),
  };
}

/**
 * The names the document enumerates for `fields` on a read of `resource`: the record's own fields, each relation it can
 * expand (whole) and each field of an expanded record, one relation deep. Every one is a name the server takes, so a
 * schema-valid selection is never refused. Deeper dotted names (`owner.items.name`, down to EXPAND_MAX_DEPTH) are
 * taken too and named in the description, not enumerated: enumerated, they made each read's parameter hundreds of
 * values long, in the typed clients too, and every generated test of the document a four-level expansion.
 */
function selectableFieldNames(resource: Resource, own: readonly string[]): string[] {
  const names = new Set(own);
  for (const relation of relationsOf(resource).values()) {
    names.add(relation.name);
    for (const field of ownFieldNames(relation.target)) names.add(`${relation.name}.${field}`);
  }
  return [...names];
}

/**
 * What a read that takes a selection answers per record: its plain representation (`Item`) or, with `expand` or
 * `fields`, the selected one (`ItemSelected`), whose every field but the id is optional and whose relations appear when
 * expanded.
 */
export const readRecordSchema = (
  resource: Resource,
  plain: z.ZodType,
  view?: {
    name: string;
    fields: Readonly<Record<string, string>>;
    meta: { id: string; description: string };
  },
): z.ZodType => z.union([plain, selectedSchema(resource, relationsOf, view)]);

const ownFieldNames = (resource: Resource): string[] =>
  resource.fields
    .filter((field) => field.rest !== null && field.shown !== false)
    .map((field) => field.rest as string);

/** A read's selection as the operation to send, how to represent and tag its answer, and how to name its errors. */
export interface ReadSelection<TData> {
  selection: Selection;
  operation: Operation<TData>;
  represent: (node: Readonly<Record<string, unknown>>) => Represented;
  translate: ErrorTranslation;
}

/** The expanded documents, per route operation and selection shape (the set is closed: declared names, bounded depth). */
const documents = new LRUCache<string, string>({ max: 2_000 });

/**
 * The request's `expand` and `fields` as one operation: null when it names neither (the route sends its fixed
 * document). `view` is the top level's REST names -> field keys where the route answers a view (the users listing per
 * API version), with `viewName` for its representation.
 */
export function readSelection<TData>(
  operation: Operation<TData>,
  resource: Resource,
  query: unknown,
  options: { view?: { name: string; fields: Readonly<Record<string, string>> } } = {},
): ReadSelection<TData> | null {
  const given = (query ?? {}) as { expand?: unknown; fields?: unknown };
  const selection = parseSelection(resource, given, relationsOf, options.view?.fields);
  if (!selection) return null;
  const key = `${operation.name}|${options.view?.name ?? ''}|${selectionKey(selection)}`;
  let document = documents.get(key);
  if (document === undefined) {
    const extra = resource.fields.some((field) => field.kind === 'version' && field.graphql)
      ? ['version']
      : [];
    document = withFragment(
      operation.document,
      `${resource.type}Fields`,
      graphqlSelection(selection, extra, options.view?.fields),
    );
    documents.set(key, document);
  }
  return {
    selection,
    operation: { name: operation.name, document },
    represent: selectedRepresentation(selection, options.view?.name),
    translate: (error) => namedError(selection, error),
  };
}

/** The operation's document with the fragment `name` selecting `selection` instead (the fixed fields it had). */
function withFragment(document: string, name: string, selection: string): string {
  const replacement = (parse(`{ ${selection} }`).definitions[0] as { selectionSet: SelectionSetNode })
    .selectionSet;
  let found = false;
  const edited = visit(parse(document), {
    FragmentDefinition(node: FragmentDefinitionNode) {
      if (node.name.value !== name) return undefined;
      found = true;
      return { ...node, selectionSet: replacement };
    },
  });
  if (!found) throw new Error(`the operation has no fragment ${name} to select into`);
  return print(edited);
}

/** A FORBIDDEN met inside the selection, named by its REST path (`owner.email`) and the parameter that asked for it. */
function namedError(
  selection: Selection,
  error: { message: string; path?: ReadonlyArray<string | number>; extensions?: Record<string, unknown> },
) {
  if (error.extensions?.['code'] !== 'FORBIDDEN' || !error.path) return undefined;
  const path = restPathOf(selection, error.path);
  if (!path) return undefined;
  const parameter = selection.expand.has(path.split('.')[0]!) ? 'expand' : 'fields';
  const message = `\`${path}\`: ${error.message}`;
  return new AppError('FORBIDDEN', message, { details: [{ field: parameter, message }] });
}

/**
 * Refuses (400 naming `expand`/`fields`) a selection whose operation would exceed the GraphQL limits a GraphQL client
 * meets (GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_COST), costed as GraphQL Armor costs a client's document, with the request's
 * page size written in. A read without `expand` or `fields` sends a fixed document and stays exempt (ADR 0011).
 */
export function checkLimits(
  read: ReadSelection<unknown>,
  variables: Record<string, unknown>,
  env: Pick<RestEnvironment, 'GRAPHQL_MAX_DEPTH' | 'GRAPHQL_MAX_COST'>,
): void {
  const parameter = read.selection.expand.size > 0 ? 'expand' : 'fields';
  const { depth, cost } = measureOperation(parse(read.operation.document), variables, {
    maxDepth: env.GRAPHQL_MAX_DEPTH,
    maxCost: env.GRAPHQL_MAX_COST,
  });
  if (depth > env.GRAPHQL_MAX_DEPTH) {
    const message = `the operation would be ${depth} levels deep; the limit is ${env.GRAPHQL_MAX_DEPTH}: expand less deeply`;
    throw new AppError('BAD_REQUEST', `${parameter}: ${message}`, {
      details: [{ field: parameter, message }],
    });
  }
  if (cost > env.GRAPHQL_MAX_COST) {
    const message =
      `the operation would cost ${Math.ceil(cost)}; the limit is ${env.GRAPHQL_MAX_COST} (an expanded list counts ` +
      `${EXPANDED_LIST_SIZE} records per parent): expand less, or ask a smaller page`;
    throw new AppError('BAD_REQUEST', `${parameter}: ${message}`, {
      details: [{ field: parameter, message }],
    });
  }
}

/**
 * A strong tag's part for a selected representation: the answer's bytes differ from the record's own representation
 * and change with the expanded records, which the record's version does not follow, so the tag adds a digest of the
 * body (If-Match still reads the version only).
 */
export const selectionDigest = (body: unknown): string =>
  `x${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 22)}`;
