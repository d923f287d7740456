/**
 * REST `expand` and `fields` from the declarations (docs/decisions/0027-rest-expand-fields-compression.md): which
 * relations each resource can expand (its references' `relation`, the inverse lists other resources declare on it, its
 * `children`), how a request's `expand` and `fields` parameters become a selection tree of declared names only, the
 * GraphQL selection of that tree (written from the declarations' GraphQL names, never from the client's text), and the
 * REST representation of an answer to it. Hand-written: the rules (dotted paths, implied expansions, the id always
 * there) are this interface's own; the GraphQL side is plain text the facade parses once per shape.
 */
import { z } from 'zod';
import { AppError } from '@platform/errors';
import type { Field, Resource } from './resource';
import { representation, type Represented } from './rest-representation';
import { shownFields } from './rest-schemas';

/** The deepest a dotted path may reach (`comments.author.posts.comments` is 4), as Stripe's `expand[]`. */
export const EXPAND_MAX_DEPTH = 4;
/** An expanded list (a user's items, a post's comments) holds its first records in id order, as GraphQL's default. */
export const EXPANDED_LIST_SIZE = 20;
/** How many names one parameter may list. */
const MAX_NAMES = 50;
const PATH = /^[a-z][a-z0-9_]{0,63}(?:\.[a-z][a-z0-9_]{0,63})*$/;

/** A relation a resource can expand: its REST name is its GraphQL field's (`owner`, `comments`). */
export interface ExpandableRelation {
  name: string;
  target: Resource;
  /** A list (`User.items`, `Post.comments`) rather than one record (`Item.owner`). */
  many: boolean;
  description: string;
}

/** One level of a selection: the resource, the REST fields it shows (undefined: all) and what it expands. */
export interface Selection {
  resource: Resource;
  /** REST names shown at this level, the id always among them; undefined: every field. */
  fields: ReadonlySet<string> | undefined;
  expand: ReadonlyMap<string, { relation: ExpandableRelation; selection: Selection }>;
}

/** The relations of every declared resource, by type: built once from the declarations. */
export function expandableRelations(resources: readonly Resource[]): (resource: Resource) => ReadonlyMap<string, ExpandableRelation> {
  const byType = new Map(resources.map((resource) => [resource.type, resource]));
  const relations = new Map<string, Map<string, ExpandableRelation>>(resources.map((resource) => [resource.type, new Map()]));
  const add = (from: Resource, relation: ExpandableRelation) => relations.get(from.type)!.set(relation.name, relation);
  for (const resource of resources) {
    for (const field of resource.fields) {
      const relation = field.relation;
      const target = relation && byType.get(relation.target);
      if (!relation || !target) continue;
      add(resource, { name: relation.field, target, many: false, description: relation.description });
      if (relation.inverse)
        add(target, { name: relation.inverse.field, target: resource, many: true, description: relation.inverse.description });
    }
    for (const child of resource.children ?? []) {
      const target = byType.get(child.type);
      if (target) add(resource, { name: child.field, target, many: true, description: child.description });
    }
  }
  return (resource) => relations.get(resource.type) ?? new Map();
}

/** Every dotted path a resource can expand, up to the depth limit (the OpenAPI enum of `expand`). */
export function expandablePaths(
  resource: Resource,
  relationsOf: (resource: Resource) => ReadonlyMap<string, ExpandableRelation>,
  depth = EXPAND_MAX_DEPTH,
): string[] {
  if (depth === 0) return [];
  return [...relationsOf(resource).values()].flatMap((relation) => [
    relation.name,
    ...expandablePaths(relation.target, relationsOf, depth - 1).map((path) => `${relation.name}.${path}`),
  ]);
}

const badRequest = (parameter: 'expand' | 'fields', message: string) =>
  new AppError('BAD_REQUEST', `${parameter}: ${message}`, { details: [{ field: parameter, message }] });

/** `expand=a,b&expand=c` -> [a, b, c]; each a dotted path of lower-case names. */
function namesOf(parameter: 'expand' | 'fields', value: unknown): string[] {
  if (value === undefined) return [];
  const values = Array.isArray(value) ? value : [value];
  const names = values.flatMap((text) => (typeof text === 'string' ? text.split(',') : [undefined]));
  if (names.length > MAX_NAMES) throw badRequest(parameter, `at most ${MAX_NAMES} names`);
  return names.map((name) => {
    if (typeof name !== 'string' || !PATH.test(name))
      throw badRequest(parameter, `\`${String(name).slice(0, 100)}\` is not a name or a dotted path of names`);
    return name;
  });
}

/**
 * A `fields` parameter over a flat record that has no declaration (the event feed): the names it keeps, `id` always
 * among them; undefined when absent. A dotted or unknown name is a 400 naming it.
 */
export function sparseFields(value: unknown, known: readonly string[], what: string): ReadonlySet<string> | undefined {
  const names = namesOf('fields', value);
  if (names.length === 0) return undefined;
  const fields = new Set(['id']);
  for (const name of names) {
    if (!known.includes(name)) throw badRequest('fields', `\`${name}\`: ${what} has no field \`${name}\` (fields: ${known.join(', ')})`);
    fields.add(name);
  }
  return fields;
}

interface Level {
  resource: Resource;
  /** The REST names this level shows, when it is a view (`{id, name}`): name -> field key. */
  names: ReadonlyMap<string, Field>;
  fields: Set<string> | undefined;
  expand: Map<string, { relation: ExpandableRelation; level: Level }>;
}

const namesOfResource = (resource: Resource): Map<string, Field> =>
  new Map(shownFields(resource).map((field) => [field.rest as string, field]));

/**
 * A request's `expand` and `fields` as a selection of `resource` (null when it names neither). `view` maps the top
 * level's REST names to field keys where the route answers a view (the users listing in v1 and v2); expanded records
 * always show their resource's full representation, as their own GET does. An unknown or too deep name is a 400 naming
 * it.
 */
export function parseSelection(
  resource: Resource,
  query: { expand?: unknown; fields?: unknown },
  relationsOf: (resource: Resource) => ReadonlyMap<string, ExpandableRelation>,
  view?: Readonly<Record<string, string>>,
): Selection | null {
  const expand = namesOf('expand', query.expand);
  const fields = namesOf('fields', query.fields);
  if (expand.length === 0 && fields.length === 0) return null;
  const top: Level = {
    resource,
    names: view
      ? new Map(Object.entries(view).map(([name, key]) => [name, resource.field(key)]))
      : namesOfResource(resource),
    fields: undefined,
    expand: new Map(),
  };
  /** Follows (and expands) the relations a path names; `parameter` and `path` name it in an error. */
  const walk = (segments: readonly string[], parameter: 'expand' | 'fields', path: string): Level => {
    if (segments.length > EXPAND_MAX_DEPTH)
      throw badRequest(parameter, `\`${path}\` expands ${segments.length} levels deep; at most ${EXPAND_MAX_DEPTH}`);
    let level = top;
    segments.forEach((name, index) => {
      const relation = relationsOf(level.resource).get(name);
      if (!relation) {
        const known = [...relationsOf(level.resource).keys()];
        const where = index === 0 ? level.resource.type : `${segments.slice(0, index).join('.')} (${level.resource.type})`;
        throw badRequest(
          parameter,
          `\`${path}\`: ${where} has no relation \`${name}\`${known.length ? ` (expandable: ${known.join(', ')})` : ''}`,
        );
      }
      let next = level.expand.get(name)?.level;
      if (!next) {
        next = { resource: relation.target, names: namesOfResource(relation.target), fields: undefined, expand: new Map() };
        level.expand.set(name, { relation, level: next });
      }
      level = next;
    });
    return level;
  };
  for (const path of expand) walk(path.split('.'), 'expand', path);
  for (const path of fields) {
    const segments = path.split('.');
    const name = segments.pop()!;
    const level = walk(segments, 'fields', path);
    if (relationsOf(level.resource).has(name)) {
      // A relation named in `fields` is expanded whole.
      walk([...segments, name], 'fields', path);
      continue;
    }
    if (!level.names.has(name)) {
      throw badRequest(
        'fields',
        `\`${path}\`: ${level.resource.type} has no field \`${name}\` (fields: ${[...level.names.keys()].join(', ')})`,
      );
    }
    level.fields ??= new Set(['id']);
    level.fields.add(name);
  }
  const freeze = (level: Level): Selection => ({
    resource: level.resource,
    fields: level.fields,
    expand: new Map([...level.expand].map(([name, { relation, level: next }]) => [name, { relation, selection: freeze(next) }])),
  });
  return freeze(top);
}

/** A canonical text of a selection: the same for every spelling of the same request (the key of its document). */
export function selectionKey(selection: Selection): string {
  const fields = selection.fields ? `[${[...selection.fields].sort().join(',')}]` : '';
  const expand = [...selection.expand.keys()].sort().map((name) => `${name}(${selectionKey(selection.expand.get(name)!.selection)})`);
  return `${fields}${expand.length ? `{${expand.join(',')}}` : ''}`;
}

/**
 * The GraphQL selection set (without braces) of one level: the GraphQL keys of the shown fields (every shown field
 * without `fields`; a view's), `extra` keys the caller needs (the top level's `version`), then each expanded relation
 * with its own selection, lists with their literal size. Only declared names reach it.
 */
export function graphqlSelection(
  selection: Selection,
  extra: readonly string[] = [],
  view?: Readonly<Record<string, string>>,
  nested = false,
): string {
  const names = view ?? Object.fromEntries(shownFields(selection.resource).map((field) => [field.rest as string, field.key]));
  const keys = new Set<string>();
  for (const [name, key] of Object.entries(names)) if (!selection.fields || selection.fields.has(name)) keys.add(key);
  for (const key of extra) keys.add(key);
  // An expanded record of another subgraph with only its id selected would be answered from the reference alone,
  // without its subgraph deciding whether the caller may see it (a deactivated user is null): ask one public field too.
  if (nested && [...keys].every((key) => key === 'id')) {
    const resolving = shownFields(selection.resource).find((field) => field.kind !== 'id' && !field.read);
    if (resolving) keys.add(resolving.key);
  }
  const relations = [...selection.expand].map(
    ([name, { relation, selection: inner }]) =>
      `${name}${relation.many ? `(first: ${EXPANDED_LIST_SIZE})` : ''} { ${graphqlSelection(inner, [], undefined, true)} }`,
  );
  return [...keys, ...relations].join(' ');
}

type Node = Readonly<Record<string, unknown>>;

/**
 * The REST representation of an answer to a selection: the resource's (or the view's) representation restricted to
 * the chosen fields, then each expanded relation under its name: a record or null (absent, or one the caller may not
 * see), or a list.
 */
export function selectedRepresentation(
  selection: Selection,
  view?: string,
): (node: Node) => Represented {
  const base = representation(selection.resource, view);
  const relations = [...selection.expand].map(
    ([name, { relation, selection: inner }]) => [name, relation.many, selectedRepresentation(inner)] as const,
  );
  return (node) => {
    const full = base(node);
    const body: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(full))
      if (!selection.fields || selection.fields.has(name)) body[name] = value;
    for (const [name, many, represent] of relations) {
      const value = node[name];
      body[name] = many
        ? ((value as Node[] | null | undefined) ?? []).map(represent)
        : value === null || value === undefined
          ? null
          : represent(value as Node);
    }
    return body as Represented;
  };
}

/**
 * The REST path of a GraphQL error's path inside a selection (`['items', 'nodes', 3, 'owner', 'email']` from the root
 * field -> `owner.email`): list indices and connection wrappers dropped, GraphQL keys as REST names. Undefined when the
 * path does not reach into the selection (an error of the root field itself).
 */
export function restPathOf(selection: Selection, path: ReadonlyArray<string | number>): string | undefined {
  const names: string[] = [];
  let level: Selection | undefined = selection;
  for (const segment of path.slice(1)) {
    if (typeof segment === 'number' || segment === 'nodes' || !level) continue;
    const expanded = level.expand.get(segment);
    if (expanded) {
      names.push(segment);
      level = expanded.selection;
      continue;
    }
    const field = level.resource.fields.find((candidate) => candidate.key === segment);
    names.push(field?.rest ?? segment);
    level = undefined;
  }
  return names.length > 0 ? names.join('.') : undefined;
}

const selectedSchemas = new Map<string, z.ZodType>();

/**
 * The schema of a record as a read with `expand` or `fields` answers it (`ItemSelected`; `UserV1Selected` for a view):
 * the id always, every other field optional (present unless `fields` leaves it out), each relation optional under its
 * name (a record or null, or a list), each expanded record in its own selected schema. Built once per resource and
 * view, recursive through the relations (an item's owner's items).
 */
export function selectedSchema(
  resource: Resource,
  relationsOf: (resource: Resource) => ReadonlyMap<string, ExpandableRelation>,
  view?: { name: string; fields: Readonly<Record<string, string>>; meta: { id: string; description: string } },
): z.ZodType {
  const id = view ? `${view.meta.id}Selected` : `${resource.rest.public.id}Selected`;
  const known = selectedSchemas.get(id);
  if (known) return known;
  const names: Array<[string, Field]> = view
    ? Object.entries(view.fields).map(([name, key]) => [name, resource.field(key)])
    : shownFields(resource).map((field) => [field.rest as string, field]);
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of names) {
    if (!field.output) throw new Error(`${resource.type}.${field.key} has no REST output schema`);
    shape[name] = name === 'id' ? field.output : field.output.optional();
  }
  const relations = [...relationsOf(resource).values()];
  const schema = z.object(shape);
  // Getters: the relations are recursive (an item's owner's items), and zod reads them only when it walks them.
  const withRelations = schema.extend(
    Object.fromEntries(
      relations.map((relation) => [
        relation.name,
        (() => {
          const lazy = z.lazy(() => {
            const target = selectedSchema(relation.target, relationsOf);
            return relation.many ? z.array(target).max(EXPANDED_LIST_SIZE) : target.nullable();
          });
          const what = relation.many
            ? `its first ${EXPANDED_LIST_SIZE} ${relation.target.plural} in id order`
            : `the ${relation.target.label.toLowerCase()} it refers to, or null (none, or one the caller may not see)`;
          return lazy.optional().describe(`With \`expand=${relation.name}\`: ${what}.`);
        })(),
      ]),
    ),
  );
  const described = withRelations.meta({
    id,
    description:
      `${view ? view.meta.description : resource.rest.public.description} As a read with \`expand\` or \`fields\` answers it: ` +
      'the id always, the other fields unless `fields` leaves them out, and each expanded relation under its name.',
  });
  selectedSchemas.set(id, described);
  return described;
}
