/**
 * The resolvers every record type of a subgraph shares, written once: its entity reference, its root query and write
 * mutation fields (delegating to a RecordService; `expectedVersion` is If-Match), and the User extension listing a
 * user's records (`User.items`, `User.posts`), batched.
 */
import type DataLoader from 'dataloader';
import { requireScope, type Caller, type Scope } from '@platform/auth';
import { isEntityId } from '@platform/contracts';
import { parseNestedFirst, type ConnectionArgs } from '@platform/listing';
import type { RecordWriteArgs } from './record-service';

/** What the resolvers call on a record's service: RecordService's use cases and the record type's own `create`. */
export interface RecordOperations {
  get(caller: Caller, rawId: unknown, rawParentId?: unknown): Promise<unknown>;
  list(caller: Caller, args: ConnectionArgs, rawParentId?: unknown): Promise<unknown>;
  replace(...args: RecordWriteArgs): Promise<unknown>;
  update(...args: RecordWriteArgs): Promise<unknown>;
  delete(caller: Caller, rawId: unknown, expectedVersion?: number | null, rawParentId?: unknown): Promise<boolean>;
  /** Each record type's own (RecordService leaves creation to it). */
  create(caller: Caller, rawInput: unknown, rawParentId?: unknown): Promise<unknown>;
}

type Args = Record<string, unknown>;
interface WriteArgs extends Args {
  id: string;
  input?: unknown;
  expectedVersion?: number | null;
}

/** `__resolveReference` of an entity: the read scope, then the batched by-id loader (a malformed id is no record). */
export const entityReference =
  <C extends Caller>(scope: Scope, loaderOf: (context: C) => DataLoader<number, unknown>) =>
  (reference: { id: string }, context: C) => {
    requireScope(context.principal, scope, context.authError);
    return isEntityId(reference.id) ? loaderOf(context).load(Number(reference.id)) : null;
  };

/** The root query fields of a record type (`item(id)`, `items(...)`); a parent argument (`postId`) is passed on. */
export function recordQueries<C extends Caller>(
  names: { one: string; list: string },
  serviceOf: (context: C) => RecordOperations,
  parentArgument?: string,
) {
  return {
    [names.one]: (_: unknown, args: Args & { id: string }, context: C) =>
      serviceOf(context).get(context, args.id, parentArgument && args[parentArgument]),
    [names.list]: (_: unknown, args: Args, context: C) => {
      const { [parentArgument ?? '']: parentId, ...connectionArgs } = args;
      return serviceOf(context).list(context, connectionArgs as ConnectionArgs, parentArgument && parentId);
    },
  };
}

/**
 * The write mutations of a record type, named after it (`Item`: createItem, replaceItem, updateItem, deleteItem); the
 * versioned ones honour `expectedVersion`. `replace: false` for a type without a full update; `parent` names the
 * argument holding the parent's id (`postId`).
 */
export function recordMutations<C extends Caller>(
  label: string,
  serviceOf: (context: C) => RecordOperations,
  options: { replace?: boolean; parent?: string } = {},
) {
  const parentOf = (args: WriteArgs) => (options.parent ? args[options.parent] : undefined);
  const mutations: Record<string, (parent: unknown, args: WriteArgs, context: C) => Promise<unknown>> = {
    [`create${label}`]: (_, args, context) => serviceOf(context).create(context, args.input, parentOf(args)),
    [`update${label}`]: (_, args, context) =>
      serviceOf(context).update(context, args.id, args.input, args.expectedVersion, parentOf(args)),
    [`delete${label}`]: (_, args, context) =>
      serviceOf(context).delete(context, args.id, args.expectedVersion, parentOf(args)),
  };
  if (options.replace !== false)
    mutations[`replace${label}`] = (_, args, context) =>
      serviceOf(context).replace(context, args.id, args.input, args.expectedVersion, parentOf(args));
  return mutations;
}

interface UserReference {
  id: string;
}

/** The User entity as a subgraph extends it with one list of the user's records, batched across the response. */
export function userRecordsResolvers<C extends Caller>(
  field: string,
  scope: Scope,
  loaderOf: (context: C, first: number) => DataLoader<number, unknown[]>,
) {
  return {
    User: {
      __resolveReference: (reference: UserReference) => ({ id: reference.id }),
      [field]: (user: UserReference, args: { first?: number | null }, context: C) => {
        requireScope(context.principal, scope, context.authError);
        const first = parseNestedFirst(args.first);
        return isEntityId(user.id) ? loaderOf(context, first).load(Number(user.id)) : [];
      },
    },
  };
}
