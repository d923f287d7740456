/**
 * A declared resource's GraphQL type in its subgraph, derived from the declaration: each field resolved from the
 * stored document (ids and references as `ID`s, cents as currency units, instants as RFC 3339 strings, a missing
 * version as 0), each relation as a reference (another subgraph's entity) or through a loader (this subgraph's), and
 * every field's read rule enforced by its own resolver, so it holds however the record was reached: a root field,
 * `_entities`, a relation, a mutation's answer (docs/decisions/0022-resource-declarations.md, OWASP API3:2023).
 */
import { AppError } from '@platform/errors';
import { canWriteAsOwner, requireScope, type Caller, type Scope } from '@platform/auth';
import { RESOURCES, type Field, type FieldRead, type Resource } from '@platform/contracts';
import { parseNestedFirst } from '@platform/listing';
import type DataLoader from 'dataloader';
import { entityReference } from './record-resolvers';

type Doc = Record<string, unknown>;
type Resolver<C> = (doc: Doc, args: Record<string, unknown>, context: C) => unknown;

/** Records a mutation of this request answered (a registration, seen by its registrant without a token). */
const answered = new WeakSet<object>();

/** Marks a record this request's mutation wrote and answers: its fields are the caller's to read. */
export function answeredWrite<T extends object>(record: T): T {
  answered.add(record);
  return record;
}

const storedValue = (doc: Doc, field: Field): unknown => doc[field.stored as string];

/** The id of the user who may write the record besides an admin (for a user: itself). */
const ownerOf = (resource: Resource, doc: Doc): number | null => {
  const value = storedValue(doc, resource.field(resource.owner));
  return typeof value === 'number' ? value : null;
};

/**
 * A field with a rule of its own: a service, the scope it names, or (orWriter) the record's write scope as its owner
 * or an admin; a record this request's mutation answered is its caller's. FORBIDDEN otherwise, naming the scope.
 */
export function mayRead(resource: Resource, rule: FieldRead, doc: Doc, caller: Caller): boolean {
  if (answered.has(doc)) return true;
  const principal = caller.principal;
  if (!principal) return false;
  if (principal.kind === 'service' || principal.scopes.includes(rule.scope)) return true;
  const write = resource.scopes?.write;
  return rule.orWriter === true && write !== undefined && principal.scopes.includes(write) && canWriteAsOwner(principal, ownerOf(resource, doc));
}

const forbidden = (scope: Scope) => new AppError('FORBIDDEN', `Not enough permissions. Required: ${scope}`);

/** The value of a stored field as GraphQL shows it. */
function valueResolver(resource: Resource, field: Field): Resolver<unknown> | undefined {
  const path = field.stored;
  if (path === null) return undefined;
  const fromStored = field.fromStored as ((value: unknown) => unknown) | undefined;
  switch (field.kind) {
    case 'id':
    case 'reference':
      return (doc) => {
        const value = doc[path];
        return value === null || value === undefined ? null : String(value);
      };
    case 'datetime':
      return (doc) => {
        const value = doc[path];
        return value instanceof Date ? value.toISOString() : (value ?? null);
      };
    case 'version':
      return (doc) => doc[path] ?? 0;
    default:
      if (fromStored) return (doc) => fromStored(doc[path]);
      return path === field.key ? undefined : (doc) => doc[path];
  }
}

const resourceOfType = (type: string): Resource | undefined =>
  (Object.values(RESOURCES) as Resource[]).find((resource) => resource.type === type);

export interface TypeResolverOptions<C> {
  /** Fields the subgraph computes (`likeCount`): every declared field that is not stored needs one. */
  computed?: Readonly<Record<string, Resolver<C>>>;
  /** This subgraph's records a relation or a child list resolves to (`Comment.post`, `Post.comments`). */
  load?: Readonly<Record<string, (doc: Doc, context: C, first: number) => unknown>>;
}

/**
 * The resolvers of the resource's GraphQL type (without `__resolveReference`): `{ [type]: { field: resolver } }`.
 * A relation to another subgraph's entity answers a reference (`{ __typename: 'User', id }`; that subgraph applies the
 * rules of its fields); a relation or child list within this subgraph needs the target's read scope.
 */
export function typeResolvers<C extends Caller>(
  resource: Resource,
  options: TypeResolverOptions<C> = {},
): Record<string, Resolver<C>> {
  const resolvers: Record<string, Resolver<C>> = {};
  const guarded = (field: Field, resolve: Resolver<C>): Resolver<C> => {
    const rule = field.read;
    if (!rule) return resolve;
    return (doc, args, context) => {
      if (!mayRead(resource, rule, doc, context)) throw forbidden(rule.scope);
      return resolve(doc, args, context);
    };
  };
  const within = (target: string, field: string, resolve: (doc: Doc, args: Record<string, unknown>, context: C) => unknown): Resolver<C> => {
    const scope = resourceOfType(target)?.scopes?.read;
    return (doc, args, context) => {
      if (scope) requireScope(context.principal, scope, context.authError);
      return resolve(doc, args, context);
    };
  };
  const loader = (name: string) => {
    const load = options.load?.[name];
    if (!load) throw new Error(`${resource.type}.${name} resolves within its subgraph: give its loader`);
    return load;
  };
  for (const field of resource.fields) {
    if (field.graphql && field.shown !== false) {
      const computed = options.computed?.[field.key];
      const resolve = computed ?? (valueResolver(resource, field) as Resolver<C> | undefined);
      if (field.stored === null && !computed) throw new Error(`${resource.type}.${field.key} is computed: give its resolver`);
      if (resolve) resolvers[field.key] = guarded(field, resolve);
      else if (field.read) resolvers[field.key] = guarded(field, (doc) => doc[field.key]);
    }
    const relation = field.relation;
    if (relation) {
      const target = resourceOfType(relation.target);
      const path = field.stored as string;
      if (target && target.subgraph === resource.subgraph) {
        const load = loader(relation.field);
        resolvers[relation.field] = within(relation.target, relation.field, (doc, _args, context) => load(doc, context, 0));
      } else {
        resolvers[relation.field] = (doc) => {
          const id = doc[path];
          return id === null || id === undefined ? null : { __typename: relation.target, id: String(id) };
        };
      }
    }
  }
  for (const child of resource.children ?? []) {
    const load = loader(child.field);
    resolvers[child.field] = within(child.type, child.field, (doc, args, context) =>
      load(doc, context, parseNestedFirst(args['first'])),
    );
  }
  return resolvers;
}

/**
 * The resolvers of one of the resource's other GraphQL types (`graphqlViews`, e.g. `CreatedApiKey`): each field as the
 * type resolves it, read from `source(parent)` (what the operation answered holds the record).
 */
export function viewResolvers<C>(
  resource: Resource,
  view: string,
  source: (parent: never) => Doc,
): Record<string, Resolver<C>> {
  const declared = resource.graphqlViews?.[view];
  if (!declared) throw new Error(`${resource.type} has no GraphQL view ${view}`);
  const read = source as (parent: unknown) => Doc;
  return Object.fromEntries(
    declared.fields.map((key) => {
      const field = resource.field(key);
      const resolve = valueResolver(resource, field);
      return [key, (parent: unknown) => (resolve ? resolve(read(parent), {}, undefined) : read(parent)[key])];
    }),
  );
}

/**
 * An entity's resolvers: its type's fields (typeResolvers) and its `__resolveReference` through the batched by-id
 * loader, behind the declaration's read scope.
 */
export function entityResolvers<C extends Caller, T>(
  resource: Resource,
  loaderOf: (context: C) => DataLoader<number, T>,
  options: TypeResolverOptions<C> = {},
) {
  const scope = resource.scopes?.read;
  if (!scope) throw new Error(`${resource.type} declares no read scope`);
  return { ...typeResolvers(resource, options), __resolveReference: entityReference(scope, loaderOf) };
}
