/**
 * One declaration per resource (docs/decisions/0022-resource-declarations.md): its fields with their REST, GraphQL and
 * stored names, types and bounds, who may read and write each, which are filterable and sortable, which are relations,
 * and which API versions show which. Everything else derives from it: the REST bodies and representations (hence
 * OpenAPI), the subgraph SDL (types, filters, connections, inputs), the facade's fragments and operations, the
 * mappers REST <-> GraphQL <-> stored, the listing and the index specs.
 *
 * Hand-written because nothing off the shelf spans REST (zod/OpenAPI), federated GraphQL SDL and MongoDB documents at
 * once: schema-first tools (Pothos, TypeGraphQL, Nexus) own the GraphQL server and know neither the REST contract nor
 * the stored form, and a code generator would need its own input language. This is plain data plus small functions.
 */
import { z } from 'zod';
import type { Scope } from '@platform/auth';
import { ENTITY_ID_MAX } from '../entity-id';

/** What a value is; every derivation switches on it (GraphQL type, JSON type, stored form, conversions). */
export type ValueKind =
  | 'id'
  | 'reference'
  | 'string'
  | 'decimal'
  | 'integer'
  | 'boolean'
  | 'enum'
  | 'datetime'
  | 'strings'
  | 'version';

/** The write operations a body or GraphQL input exists for. */
export type WriteOperation = 'create' | 'replace' | 'update';

/**
 * Whether an operation takes the field and what leaving it out means: `required`; `optional` (omitted: the
 * operation's default, `omitted` below); absent: the operation does not take it (a validation error naming it).
 */
export type Presence = 'required' | 'optional';

export interface FieldWrite {
  create?: Presence;
  replace?: Presence;
  /** PATCH: omitted means unchanged (`required` only where a PATCH exists to change this one field). */
  update?: Presence;
  /**
   * What an omitted `optional` field becomes: `null` (create and replace), `keep` (replace keeps the stored value),
   * `caller` (create: the calling user's id, for the owner). Default: null on create and replace.
   */
  omitted?: { create?: 'null' | 'caller'; replace?: 'null' | 'keep' };
  /** Who may set it to anything but the caller's own id (an item's owner): admins only; others get 403. */
  adminOnly?: boolean;
  /** The description of the field in each GraphQL input, where it says more than the type's field does. */
  docs?: Partial<Record<WriteOperation, string>>;
}

/**
 * Who may read a field wherever its record is reached (a root field, `_entities`, a relation): by default whoever
 * may read the record (the path that reached it checked that); a field of its own rule needs `scope`, or, with
 * `orWriter`, the record's write scope as its owner or an admin (a write answers what it wrote).
 */
export interface FieldRead {
  scope: Scope;
  orWriter?: boolean;
}

/** A relation from this record to another (the reference field holds the other's id). */
export interface Relation {
  /** The GraphQL field of this type resolving the other record (`owner`). */
  field: string;
  /** The other resource's GraphQL type (`User`). */
  target: string;
  description: string;
  /** The list of this type's records on the other type (`User.items`), declared by this subgraph. */
  inverse?: { field: string; description: string; typeDescription: string };
}

/** One field of a resource, as declared; `resource()` resolves the names its key implies. */
export interface FieldSpec<V = unknown, P extends string | null | undefined = undefined, O extends boolean = false> {
  kind: ValueKind;
  /** The GraphQL type name without `!`, e.g. `String`, `ID`, `Role`, `[String!]`. */
  graphqlType: string;
  /** The value may be null (`String` rather than `String!`, JSON `null`). */
  nullable: boolean;
  /** The GraphQL field's description (what a reader of the SDL or GraphiQL sees). */
  description?: string;
  /** REST name (default: the key in snake_case); null: not part of the REST representation or bodies. */
  rest?: string | null;
  /** false: not a field of the GraphQL type (stored only, e.g. an item's timestamps). */
  graphql?: boolean;
  /**
   * false: neither the REST representation nor the GraphQL type shows it, though inputs and views may (a password, an
   * API key's secret).
   */
  shown?: boolean;
  /** The stored path (default: the key; `_id` for the id); null: not stored (computed by the subgraph). */
  stored?: P;
  /** Absent on documents written before the field existed (`version`). */
  optional?: O;
  /**
   * REST leaves the property out while the value is null or unset (its `output` is then optional, never null): a
   * field added to a resource later is absent from the representations of records that do not use it, so what existing
   * clients receive for those records does not change. GraphQL shows it as null.
   */
  omitNull?: boolean;
  /** One value as a request gives it, with the messages of its rules (REST bodies and GraphQL inputs). */
  input?: z.ZodType;
  /** One value as a response shows it (REST representations). */
  output?: z.ZodType;
  write?: FieldWrite;
  read?: FieldRead;
  /** Filterable (eq, lt, gt, in; booleans eq, in) and sortable, in REST and GraphQL; `values` of an enumeration. */
  listed?: {
    /** The description of the field in the GraphQL filter input. */
    description: string;
    values?: readonly string[];
    /** A filter value's stored form where it differs from `toStored` (cents keep a fraction to compare exactly). */
    toStored?: (value: number) => number;
  };
  relation?: Relation;
  /** The stored form of an API value (currency units -> cents); identity when absent. */
  toStored?: (value: never) => unknown;
  /** The API value of a stored one; identity when absent. */
  fromStored?: (stored: never) => unknown;
  /** Phantom: the stored value's type. */
  readonly __value?: V;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any field, whatever its phantom types
export type AnyField = FieldSpec<any, any, any>;

/** A field with every name resolved. */
export interface Field extends Omit<FieldSpec, 'rest' | 'graphql' | 'stored'> {
  /** The declaration key: the GraphQL name. */
  key: string;
  rest: string | null;
  graphql: boolean;
  stored: string | null;
}

/** How REST shows and takes the resource: component ids, descriptions and examples of its bodies. */
export type RestBodyMeta = {
  id: string;
  description: string;
  example: unknown;
};

/** A named view of the resource: the fields (or renamed ones) another representation shows. */
export interface View {
  meta: RestBodyMeta;
  /** REST name -> the field key it shows (`{ id: 'id', name: 'username' }`). */
  fields: Readonly<Record<string, string>>;
}

export type ResourceName = 'users' | 'items' | 'posts' | 'comments' | 'apiKeys';

export interface ResourceSpec<F extends Record<string, AnyField>, N extends ResourceName = ResourceName> {
  /** The plural, lower case: listing spec, cursor binding, collection (`items`). */
  name: N;
  /** The GraphQL type (`Item`), which is also the label of 404s. */
  type: string;
  /** What 404s call it (`Item`, `API key`); default: the type. */
  label?: string;
  /** The owning subgraph. */
  subgraph: 'users' | 'items' | 'posts' | 'auth';
  /** The MongoDB collection. */
  collection: string;
  /** The GraphQL type's description. */
  description: string;
  /** A federation entity (`@key(fields: "id")`); default true. */
  entity?: boolean;
  /** The scopes reads and writes need; absent where another rule decides (API keys: a login token, own keys only). */
  scopes?: { read: Extract<Scope, `${string}:read`>; write: Extract<Scope, `${string}:write`> };
  /** The field naming the user who may write the record besides an admin (`ownerId`; `id` for an account). */
  owner: string;
  /** The field holding the parent record's id, for records listed and addressed under another (a post's comments). */
  parent?: string;
  /**
   * The listed fields in the order filters, sort keys and cursors name them, where it is not the declaration's order
   * (a cursor binds its filter in this order, so reordering it would refuse the cursors clients hold).
   */
  listingOrder?: readonly string[];
  /** The plural as prose (`items`, `API keys`), for generated descriptions. */
  plural: string;
  fields: F;
  /** The GraphQL inputs the subgraph declares (`CreateItemInput`, ...), by operation, with their descriptions. */
  inputs: Partial<Record<WriteOperation, string>>;
  /** REST bodies by operation, and the representation every response shows (`public`). */
  rest: Partial<Record<WriteOperation, RestBodyMeta>> & { public: RestBodyMeta };
  /**
   * Other representations: which API version's listing shows which fields (a user in v1 `{id, name}`, in v2 `{id, name,
   * email}`), a created API key with its secret. A field added to the declaration appears in every version's
   * representation (an addition is compatible within a major version), not in these views.
   */
  views?: Readonly<Record<string, View>>;
  /**
   * Other GraphQL types showing some of the fields (`CreatedApiKey`), in this order, each described as the type's own
   * field unless `docs` says otherwise.
   */
  graphqlViews?: Readonly<
    Record<string, { description: string; fields: readonly string[]; docs?: Readonly<Record<string, string>> }>
  >;
  /** Lists of other records on this type, in the same subgraph (`Post.comments`): after the field named `after`. */
  children?: readonly { field: string; type: string; description: string; after: string }[];
  /** Enumerations the fields use, with a description per value, emitted with the type. */
  enums?: Readonly<Record<string, { description: string; values: Readonly<Record<string, string>> }>>;
}

export interface Resource<F extends Record<string, AnyField> = Record<string, AnyField>, N extends ResourceName = ResourceName>
  extends Omit<ResourceSpec<F, N>, 'fields' | 'listingOrder'> {
  label: string;
  entity: boolean;
  /** Every field in declaration order (the order of every representation, input and SDL type). */
  fields: readonly Field[];
  field(key: string): Field;
  /** The filterable and sortable fields, the id first, in the order listings name them. */
  listed: readonly Field[];
  /** The declaration's field specs, for the types derived from it. */
  readonly spec: F;
}

const snake = (name: string): string => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Resolves the names each field's key implies and checks what the derivations rely on. */
export function resource<const F extends Record<string, AnyField>, const N extends ResourceName>(
  spec: ResourceSpec<F, N>,
): Resource<F, N> {
  const fields: Field[] = Object.entries(spec.fields).map(([key, field]) => ({
    ...(field as FieldSpec),
    key,
    rest: field.rest === undefined ? snake(key) : field.rest,
    graphql: field.graphql ?? true,
    stored: field.stored === undefined ? (field.kind === 'id' ? '_id' : key) : field.stored,
  }));
  const byKey = new Map(fields.map((field) => [field.key, field]));
  for (const view of Object.values(spec.views ?? {}))
    for (const key of Object.values(view.fields))
      if (!byKey.has(key)) throw new Error(`${spec.type}: a view shows the unknown field ${key}`);
  if (!byKey.has(spec.owner)) throw new Error(`${spec.type}: the owner field ${spec.owner} is not declared`);
  const listed = spec.listingOrder
    ? spec.listingOrder.map((key) => byKey.get(key)).filter((field): field is Field => field?.listed !== undefined)
    : fields.filter((field) => field.listed !== undefined);
  if (listed.length !== fields.filter((field) => field.listed !== undefined).length)
    throw new Error(`${spec.type}: listingOrder must name every listed field`);
  const { listingOrder: _order, ...rest } = spec;
  return {
    ...rest,
    listed,
    label: spec.label ?? spec.type,
    entity: spec.entity ?? true,
    fields,
    field: (key) => {
      const field = byKey.get(key);
      if (!field) throw new Error(`${spec.type} has no field ${key}`);
      return field;
    },
    spec: spec.fields,
  };
}

// ---- Field builders: each fixes a kind's GraphQL type, JSON schemas and conversions. ----

type Options = Omit<FieldSpec<unknown, string | null | undefined, boolean>, 'kind' | 'graphqlType' | 'nullable' | '__value' | 'stored' | 'optional'>;

/** The record's id: `id` in REST and GraphQL (`ID!`), `_id` stored; listed (and the final sort tie-breaker). */
export const id = (description: string): FieldSpec<number, undefined> => ({
  kind: 'id',
  graphqlType: 'ID',
  nullable: false,
  description,
  output: z.number().int().min(1).max(ENTITY_ID_MAX),
  listed: { description: 'On the id.' },
});

/** Another record's id (`ownerId`: REST `owner_id`, an integer; GraphQL `ID`), usually with its relation. */
export function reference<const N extends boolean = false>(
  options: Options & { nullable?: N },
): FieldSpec<N extends true ? number | null : number> {
  const nullable = options.nullable ?? false;
  const output = z.number().int().min(1).max(ENTITY_ID_MAX);
  return { kind: 'reference', graphqlType: 'ID', output: nullable ? output.nullable() : output, ...options, nullable };
}

/** A text value; `input` carries its rules (bounds, pattern, messages), `output` its bounds as responses show them. */
export function text<const N extends boolean = false>(
  options: Options & { nullable?: N; stored: null },
): FieldSpec<N extends true ? string | null : string, null>;
export function text<const N extends boolean = false>(
  options: Options & { nullable?: N },
): FieldSpec<N extends true ? string | null : string>;
export function text(options: Options & { nullable?: boolean; stored?: null }): FieldSpec<unknown, null | undefined> {
  return { kind: 'string', graphqlType: 'String', ...options, nullable: options.nullable ?? false };
}

/** A decimal number (GraphQL `Float`), stored under its own path in another unit where `toStored` says so. */
export function decimal<const P extends string | undefined = undefined>(
  options: Options & { stored?: P },
): FieldSpec<number, P> {
  return { kind: 'decimal', graphqlType: 'Float', ...options, nullable: false } as FieldSpec<number, P>;
}

/** An integer (GraphQL `Int`), often computed (`likeCount`: `stored: null`). */
export function integer<const P extends string | null | undefined = undefined>(
  options: Options & { stored?: P },
): FieldSpec<number, P> {
  return { kind: 'integer', graphqlType: 'Int', ...options, nullable: false } as FieldSpec<number, P>;
}

export const boolean = (options: Options): FieldSpec<boolean> => ({
  kind: 'boolean',
  graphqlType: 'Boolean',
  output: z.boolean(),
  ...options,
  nullable: false,
});

/** One of `values`, a GraphQL enum (`Role`) declared in the resource's `enums`. */
export function enumeration<const T extends string>(
  graphqlType: string,
  values: readonly [T, ...T[]],
  options: Options,
): FieldSpec<T> {
  return { kind: 'enum', graphqlType, output: z.enum(values), ...options, nullable: false };
}

/** An instant: a Date stored, an RFC 3339 string in UTC shown (GraphQL `DateTime`); `optional` on older documents. */
export function datetime(options: Options & { optional: true }): FieldSpec<Date, undefined, true>;
export function datetime(options: Options & { nullable: true }): FieldSpec<Date | null>;
export function datetime(options: Options): FieldSpec<Date>;
export function datetime(options: Options & { nullable?: boolean; optional?: boolean }): FieldSpec<unknown, undefined, boolean> {
  const nullable = options.nullable ?? false;
  const output = z.string().max(32).meta({ format: 'date-time' });
  return { kind: 'datetime', graphqlType: 'DateTime', output: nullable ? output.nullable() : output, ...options, nullable };
}

/** A list of strings (GraphQL `[String!]!`). */
export const strings = (options: Options): FieldSpec<string[]> => ({
  kind: 'strings',
  graphqlType: '[String!]',
  ...options,
  nullable: false,
});

/** The write counter behind the ETag: GraphQL `version: Int!`, absent on documents older than it (read as 0). */
export const version = (description: string): FieldSpec<number, undefined, true> => ({
  kind: 'version',
  graphqlType: 'Int',
  nullable: false,
  description,
  rest: null,
  optional: true,
});

// ---- What the declarations' types give the code that stores and serves them. ----

type FieldsOf<R> = R extends { readonly spec: infer F } ? F : never;
type ValueOf<F> = F extends FieldSpec<infer V, infer _P, infer _O> ? V : never;
type PathOf<K, F> = F extends FieldSpec<infer _V, infer P, infer _O>
  ? P extends string
    ? P
    : P extends null
      ? never
      : K extends 'id'
        ? '_id'
        : K
  : never;
type IsOptional<F> = F extends FieldSpec<infer _V, infer _P, infer O> ? O : false;

/** The MongoDB document of a resource, as its declaration stores it (`_id`, stored paths, optional fields). */
export type StoredDocument<R> = {
  [K in keyof FieldsOf<R> as IsOptional<FieldsOf<R>[K]> extends true ? never : PathOf<K, FieldsOf<R>[K]>]: ValueOf<
    FieldsOf<R>[K]
  >;
} & {
  [K in keyof FieldsOf<R> as IsOptional<FieldsOf<R>[K]> extends true ? PathOf<K, FieldsOf<R>[K]> : never]?: ValueOf<
    FieldsOf<R>[K]
  >;
};
