/**
 * The REST side of a declaration: the strict request bodies (POST, PUT, PATCH) and the representations responses show,
 * as zod schemas registered under their component ids, from which the facade validates and OpenAPI is generated.
 */
import { z } from 'zod';
import { strictBody } from '../strict-body';
import type { Field, Resource, View, WriteOperation } from './resource';

const outputOf = (resource: Resource, field: Field): z.ZodType => {
  if (!field.output) throw new Error(`${resource.type}.${field.key} has no REST output schema`);
  return field.output;
};

/** The fields REST shows in the resource's representation, in declaration order. */
export const shownFields = (resource: Resource): Field[] =>
  resource.fields.filter((field) => field.rest !== null && field.shown !== false);

/** The fields an operation takes, in declaration order. */
export const writableFields = (resource: Resource, operation: WriteOperation): Field[] =>
  resource.fields.filter((field) => field.write?.[operation] !== undefined);

/** The strict body of a write (a field it does not name is a validation error naming that field). */
function body(resource: Resource, operation: WriteOperation) {
  const meta = resource.rest[operation];
  if (!meta) throw new Error(`${resource.type} has no REST ${operation} body`);
  const shape: Record<string, z.ZodType> = {};
  for (const field of writableFields(resource, operation)) {
    if (field.rest === null || !field.input) throw new Error(`${resource.type}.${field.key} is written without a REST rule`);
    shape[field.rest] = field.write?.[operation] === 'required' ? field.input : field.input.optional();
  }
  return strictBody(meta.id, shape, meta);
}

/** A view's representation: the fields it names under its own names. */
const viewSchema = (resource: Resource, view: View) =>
  z
    .object(Object.fromEntries(Object.entries(view.fields).map(([name, key]) => [name, outputOf(resource, resource.field(key))])))
    .meta(view.meta);

export interface RestSchemas {
  create: z.ZodType;
  replace: z.ZodType;
  update: z.ZodType;
  /** What every response shows of one record. */
  public: z.ZodType;
  views: Record<string, z.ZodType>;
}

const cache = new WeakMap<Resource, RestSchemas>();

/**
 * The resource's REST schemas, built once per declaration (zod registers each component id once). A body the
 * declaration has none for throws when used.
 */
export function restSchemas(resource: Resource): RestSchemas {
  const cached = cache.get(resource);
  if (cached) return cached;
  const lazy = (operation: WriteOperation) => (resource.rest[operation] ? body(resource, operation) : undefined);
  const shown = shownFields(resource);
  const schemas = {
    create: lazy('create'),
    replace: lazy('replace'),
    update: lazy('update'),
    public: z
      .object(
        Object.fromEntries(
          shown.map((field) => [field.rest as string, field.omitNull ? outputOf(resource, field).optional() : outputOf(resource, field)]),
        ),
      )
      .meta(resource.rest.public),
    views: Object.fromEntries(Object.entries(resource.views ?? {}).map(([name, view]) => [name, viewSchema(resource, view)])),
  } as RestSchemas;
  cache.set(resource, schemas);
  return schemas;
}
