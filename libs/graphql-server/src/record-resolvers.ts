/**
 * The resolvers every record type of a subgraph shares, written once: its entity reference, its root query and write
 * mutation fields (delegating to a RecordService; `expectedVersion` is If-Match), and the User extension listing a
 * user's records (`User.items`, `User.posts`), batched.
 */
import type DataLoader from 'dataloader';
import { requireScope, type Caller, type Scope } from '@platform/auth';
import { isEntityId } from '@platform/contracts';
import { parseNestedFirst, type Connection, type ConnectionArgs } from '@platform/listing';
import type { EntityReference } from './entity-reference';
import type { RecordWriteArgs } from './record-service';

/**
 * What the resolvers call on a record's service (of records `T`): RecordService's use cases and the record type's own
 * `create`. `T` is the subgraph's mapper of the GraphQL type, so the returned resolvers check against its generated
 * `Resolvers` (`satisfies Resolvers` where they are spread).
 */
export interface RecordOperations<T> {
  get(caller: Caller, rawId: unknown, rawParentId?: unknown): Promise<T | null>;
  list(caller: Caller, args: ConnectionArgs, rawParentId?: unknown): Promise<Connection<T>>;
  replace(...args: RecordWriteArgs): Promise<T>;
  update(...args: RecordWriteArgs): Promise<T>;
  delete(
    caller: Caller,
    rawId: unknown,
    expectedVersion?: number | null,
    rawParentId?: unknown,
  ): Promise<boolean>;
  /** Each record type's own (RecordService leaves creation to it). */
  create(caller: Caller, rawInput: unknown, rawParentId?: unknown): Promise<T>;
}

/** A field resolver with its arguments (the generated `Resolver` types accept it where the types line up). */
type FieldResolver<C, A, R> = (parent: unknown, args: A, context: C) => R;
type Args = Record<string, unknown>;
interface CreateArgs extends Args {
  input?: unknown;
}
interface WriteArgs extends CreateArgs {
  id: string;
  expectedVersion?: number | null;
}

/** `__resolveReference` of an entity: the read scope, then the batched by-id loader (a malformed id is no record). */
export const entityReference =
  <C extends Caller, T>(scope: Scope, loaderOf: (context: C) => DataLoader<number, T>) =>
  (reference: EntityReference, context: C): Promise<T> | null => {
    requireScope(context.principal, scope, context.authError);
    return isEntityId(reference.id) ? loaderOf(context).load(Number(reference.id)) : null;
  };

/** The root query fields of a record type (`item(id)`, `items(...)`); a parent argument (`postId`) is passed on. */
export function recordQueries<C extends Caller, T, One extends string, List extends string>(
  names: { one: One; list: List },
  serviceOf: (context: C) => RecordOperations<T>,
  parentArgument?: string,
): Record<One, FieldResolver<C, Args & { id: string }, Promise<T | null>>> &
  Record<List, FieldResolver<C, Args, Promise<Connection<T>>>> {
  const one: FieldResolver<C, Args & { id: string }, Promise<T | null>> = (_, args, context) =>
    serviceOf(context).get(context, args.id, parentArgument && args[parentArgument]);
  const list: FieldResolver<C, Args, Promise<Connection<T>>> = (_, args, context) => {
    const { [parentArgument ?? '']: parentId, ...connectionArgs } = args;
    return serviceOf(context).list(context, connectionArgs as ConnectionArgs, parentArgument && parentId);
  };
  // Computed keys widen to `string`; the names are the literal types the signature states.
  return { [names.one]: one, [names.list]: list } as Record<One, typeof one> & Record<List, typeof list>;
}

type Create<C, T> = FieldResolver<C, CreateArgs, Promise<T>>;
type Write<C, T> = FieldResolver<C, WriteArgs, Promise<T>>;
type Delete<C> = FieldResolver<C, WriteArgs, Promise<boolean>>;
/** createItem, updateItem, deleteItem (and replaceItem unless `Replace` is false) for `Label` = `Item`. */
type RecordMutations<C, T, Label extends string, Replace extends boolean> = Record<
  `create${Label}`,
  Create<C, T>
> &
  Record<`update${Label}`, Write<C, T>> &
  Record<`delete${Label}`, Delete<C>> &
  (Replace extends false ? unknown : Record<`replace${Label}`, Write<C, T>>);

/**
 * The write mutations of a record type, named after it (`Item`: createItem, replaceItem, updateItem, deleteItem); the
 * versioned ones honour `expectedVersion`. `replace: false` for a type without a full update; `parent` names the
 * argument holding the parent's id (`postId`).
 */
export function recordMutations<C extends Caller, T, Label extends string, Replace extends boolean = true>(
  label: Label,
  serviceOf: (context: C) => RecordOperations<T>,
  options: { replace?: Replace; parent?: string } = {},
): RecordMutations<C, T, Label, Replace> {
  const parentOf = (args: CreateArgs) => (options.parent ? args[options.parent] : undefined);
  const create: Create<C, T> = (_, args, context) =>
    serviceOf(context).create(context, args.input, parentOf(args));
  const update: Write<C, T> = (_, args, context) =>
    serviceOf(context).update(context, args.id, args.input, args.expectedVersion, parentOf(args));
  const replace: Write<C, T> = (_, args, context) =>
    serviceOf(context).replace(context, args.id, args.input, args.expectedVersion, parentOf(args));
  const remove: Delete<C> = (_, args, context) =>
    serviceOf(context).delete(context, args.id, args.expectedVersion, parentOf(args));
  const mutations: Record<string, Create<C, T> | Write<C, T> | Delete<C>> = {
    [`create${label}`]: create,
    [`update${label}`]: update,
    [`delete${label}`]: remove,
  };
  if (options.replace !== false) mutations[`replace${label}`] = replace;
  // Template-literal keys are built at run time; the signature states them.
  return mutations as RecordMutations<C, T, Label, Replace>;
}

/** The User entity as a subgraph extends it with one list of the user's records (`T`), batched across the response. */
export function userRecordsResolvers<C extends Caller, T, Field extends string>(
  field: Field,
  scope: Scope,
  loaderOf: (context: C, first: number) => DataLoader<number, T[]>,
) {
  const records: FieldResolver<C, { first?: number | null }, Promise<T[]> | T[]> = (user, args, context) => {
    requireScope(context.principal, scope, context.authError);
    const first = parseNestedFirst(args.first);
    const id = (user as EntityReference).id;
    return isEntityId(id) ? loaderOf(context, first).load(Number(id)) : [];
  };
  return {
    User: {
      __resolveReference: (reference: EntityReference): EntityReference => ({ id: reference.id }),
      ...({ [field]: records } as Record<Field, typeof records>),
    },
  };
}
