/**
 * The GraphQL SDL a subgraph declares for its resources: each type (an entity with `@key`), its enums and extra views,
 * the other subgraphs' types it extends with lists of its records (`User.items`), and for a listed resource its filter
 * input and connection; then the write inputs. A subgraph's schema.graphql includes it with `# @resource <name> ...`
 * (tools/graphql-sdl.cjs), so the build, the supergraph composition, codegen and jest all read the same SDL.
 */
import type { Field, Resource, WriteOperation } from './resource';
import { writableFields } from './rest-schemas';

const INPUT_NAMES: Record<WriteOperation, string> = { create: 'Create', replace: 'Replace', update: 'Update' };

/** `CreateItemInput` for items' create. */
export const inputTypeName = (resource: Resource, operation: WriteOperation): string =>
  `${INPUT_NAMES[operation]}${resource.type}Input`;

export const filterTypeName = (resource: Resource): string => `${resource.type}Filter`;
export const connectionTypeName = (resource: Resource): string => `${resource.type}Connection`;

/** A GraphQL description: a string, or a block string when it spans lines. */
const describe = (text: string | undefined, indent = ''): string => {
  if (text === undefined) return '';
  if (!text.includes('\n')) return `${indent}${JSON.stringify(text)}\n`;
  return `${indent}"""\n${text
    .split('\n')
    .map((line) => `${indent}${line}`)
    .join('\n')}\n${indent}"""\n`;
};

const block = (description: string | undefined, head: string, lines: readonly string[]): string =>
  `${describe(description)}${head} {\n${lines.join('')}}\n`;

const member = (description: string | undefined, line: string): string => `${describe(description, '  ')}  ${line}\n`;

const valueType = (field: Field, nonNull: boolean): string => `${field.graphqlType}${nonNull ? '!' : ''}`;

/** The GraphQL type's fields: the declared ones it shows, each relation after its reference, children in place. */
function typeFields(resource: Resource): string[] {
  const lines: string[] = [];
  for (const field of resource.fields) {
    if (field.graphql && field.shown !== false) {
      lines.push(member(field.description, `${field.key}: ${valueType(field, !field.nullable)}`));
    }
    if (field.relation) lines.push(member(field.relation.description, `${field.relation.field}: ${field.relation.target}`));
    for (const child of resource.children ?? []) {
      if (child.after === field.key) lines.push(member(child.description, `${child.field}(first: Int = 20): [${child.type}!]!`));
    }
  }
  return lines;
}

/** Filter types by value kind (libs/listing/src/listing.graphql). */
function filterType(resource: Resource, field: Field): string {
  switch (field.kind) {
    case 'id':
    case 'reference':
      return 'IdFilter';
    case 'string':
    case 'enum':
      return 'StringFilter';
    case 'decimal':
      return 'FloatFilter';
    case 'boolean':
      return 'BooleanFilter';
    default:
      throw new Error(`${resource.type}.${field.key}: a ${field.kind} field cannot be listed`);
  }
}

/** A resource clients list with filters (more than its id is listed). */
export const isListed = (resource: Resource): boolean =>
  resource.fields.some((field) => field.kind !== 'id' && field.listed !== undefined);

function filter(resource: Resource): string {
  const filters = resource.listed.map((field) => member(field.listed?.description, `${field.key}: ${filterType(resource, field)}`));
  return block(`Conditions on ${resource.plural}; all given conditions must hold.`, `input ${filterTypeName(resource)}`, filters);
}

function connection(resource: Resource): string {
  return block(`A page of ${resource.plural}.`, `type ${connectionTypeName(resource)}`, [
    member(`The ${resource.plural} of this page, in the requested order.`, `nodes: [${resource.type}!]!`),
    member('Where this page ends and whether more follow.', 'pageInfo: PageInfo!'),
    member(`How many ${resource.plural} match the filter, over all pages.`, 'totalCount: Int!'),
  ]);
}

function inputs(resource: Resource): string[] {
  return (Object.keys(resource.inputs) as WriteOperation[]).map((operation) =>
    block(
      resource.inputs[operation],
      `input ${inputTypeName(resource, operation)}`,
      writableFields(resource, operation).map((field) =>
        member(
          field.write?.docs?.[operation] ?? field.description,
          `${field.key}: ${valueType(field, field.write?.[operation] === 'required')}`,
        ),
      ),
    ),
  );
}

/** Another subgraph's entity, extended with the lists of this subgraph's records on it (`User.items`). */
function extensions(resources: readonly Resource[]): string[] {
  const byType = new Map<string, { description: string; lines: string[] }>();
  for (const resource of resources) {
    for (const field of resource.fields) {
      const inverse = field.relation?.inverse;
      if (!field.relation || !inverse) continue;
      const extension = byType.get(field.relation.target) ?? { description: inverse.typeDescription, lines: ['  id: ID!\n'] };
      extension.lines.push(member(inverse.description, `${inverse.field}(first: Int = 20): [${resource.type}!]!`));
      byType.set(field.relation.target, extension);
    }
  }
  return [...byType].map(([type, { description, lines }]) => block(description, `type ${type} @key(fields: "id")`, lines));
}

function types(resource: Resource): string[] {
  const key = resource.entity ? ' @key(fields: "id")' : '';
  const enums = Object.entries(resource.enums ?? {}).map(([name, { description, values }]) =>
    block(
      description,
      `enum ${name}`,
      Object.entries(values).map(([value, text]) => member(text, value)),
    ),
  );
  return [block(resource.description, `type ${resource.type}${key}`, typeFields(resource)), ...enums];
}

function views(resource: Resource): string[] {
  return Object.entries(resource.graphqlViews ?? {}).map(([name, view]) =>
    block(
      view.description,
      `type ${name}`,
      view.fields.map((key) => {
        const field = resource.field(key);
        return member(view.docs?.[key] ?? field.description, `${key}: ${valueType(field, !field.nullable)}`);
      }),
    ),
  );
}

/**
 * What `# @resource <part> <name>...` emits. Parts, so a schema keeps its types in the order clients see them: `types`
 * (each type and its enums, then the extensions of other subgraphs' types), `views` (other types showing some of the
 * fields), `filters` and `connections` (listed resources only), `inputs` (the write inputs).
 */
export const SDL_PARTS = {
  types: (resources: readonly Resource[]) => [...resources.flatMap(types), ...extensions(resources)],
  views: (resources: readonly Resource[]) => resources.flatMap(views),
  filters: (resources: readonly Resource[]) => resources.filter(isListed).map(filter),
  connections: (resources: readonly Resource[]) => resources.filter(isListed).map(connection),
  inputs: (resources: readonly Resource[]) => resources.flatMap(inputs),
} as const;

export type SdlPart = keyof typeof SDL_PARTS;

export function resourcesSdl(part: SdlPart, resources: readonly Resource[]): string {
  const emit = SDL_PARTS[part];
  if (!emit) throw new Error(`# @resource: no part ${String(part)} (${Object.keys(SDL_PARTS).join(', ')})`);
  return emit(resources).join('\n');
}
