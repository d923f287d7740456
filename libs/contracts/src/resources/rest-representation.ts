/**
 * The facade's edge between REST and GraphQL, derived from a declaration: a GraphQL answer as its REST representation
 * (snake_case names, ids and references back to the JSON integers they are in the facade) and a REST body as the
 * GraphQL input (camelCase names, only the fields the client sent). Ids stay integers on the way out: GraphQL's `ID`
 * takes an integer as a variable value and the executor coerces it, so the facade converts an id in one place only,
 * an answer's `ID` strings here.
 */
import type { Field, Resource } from './resource';
import { shownFields, writableFields } from './rest-schemas';

type Node = Readonly<Record<string, unknown>>;
/** A REST representation: its id (the Link headers of listings read it) and the rest. */
export type Represented = { id: number } & Record<string, unknown>;

const isId = (field: Field) => field.kind === 'id' || field.kind === 'reference';

/** GraphQL `ID` -> the REST integer (null stays null). */
const restValue = (field: Field, value: unknown): unknown =>
  isId(field) && value !== null && value !== undefined ? Number(value) : (value ?? null);

/**
 * The REST representation of a GraphQL answer: every field the resource shows, or those a view names (`v1`, `created`)
 * under the view's names; a field declared `omitNull` only while it has a value.
 */
export function representation(resource: Resource, view?: string): (node: Node) => Represented {
  const declared = view === undefined ? undefined : resource.views?.[view];
  if (view !== undefined && !declared) throw new Error(`${resource.type} has no view ${view}`);
  const pairs: ReadonlyArray<readonly [string, Field]> = declared
    ? Object.entries(declared.fields).map(([name, key]) => [name, resource.field(key)] as const)
    : shownFields(resource).map((field) => [field.rest as string, field] as const);
  return (node) => {
    const body: Record<string, unknown> = {};
    for (const [name, field] of pairs) {
      const value = restValue(field, node[field.key]);
      if (value !== null || !field.omitNull) body[name] = value;
    }
    return body as Represented;
  };
}

/** A validated REST body of any write -> the GraphQL input: the fields given, under their GraphQL names. */
export function graphqlInput(resource: Resource): (body: unknown) => Record<string, unknown> {
  const byRest = new Map<string, Field>();
  for (const operation of ['create', 'replace', 'update'] as const)
    for (const field of writableFields(resource, operation)) if (field.rest !== null) byRest.set(field.rest, field);
  return (body) => {
    const input: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
      const field = byRest.get(name);
      if (!field || value === undefined) continue;
      input[field.key] = value;
    }
    return input;
  };
}

/**
 * The REST representation of a stored record (what its events carry, ADR 0023): the same fields as `representation`
 * shows, from the stored document (cents as currency units, instants as RFC 3339 strings); computed fields (a post's
 * like count) are not part of the record's state and are left out.
 */
export function storedRepresentation(resource: Resource): (record: object) => Record<string, unknown> {
  const fields = shownFields(resource).filter((field) => field.stored !== null);
  return (record) => {
    const stored = record as Readonly<Record<string, unknown>>;
    const body: Record<string, unknown> = {};
    for (const field of fields) {
      const raw = stored[field.stored as string];
      const fromStored = field.fromStored as ((value: unknown) => unknown) | undefined;
      const value =
        raw === undefined || raw === null
          ? null
          : raw instanceof Date
            ? raw.toISOString()
            : fromStored
              ? fromStored(raw)
              : raw;
      if (value !== null || !field.omitNull) body[field.rest as string] = value;
    }
    return body;
  };
}
