/**
 * The GraphQL side of a declaration's writes: the rule of each input a subgraph validates (the same bounds and messages
 * as the REST bodies, keyed by GraphQL names, ids as GraphQL `ID`s), so a GraphQL client meets the same rules as a
 * REST one without the input being rebuilt in REST's shape first.
 */
import { z } from 'zod';
import { ENTITY_ID_MESSAGE, isEntityId } from '../entity-id';
import type { Field, Resource, WriteOperation } from './resource';
import { writableFields } from './rest-schemas';

/** A reference's id as GraphQL delivers an `ID` (a string, or a number): the stored number. */
const graphqlId = z.custom<string | number>(isEntityId, ENTITY_ID_MESSAGE).transform((raw) => Number(raw));

function valueRule(resource: Resource, field: Field): z.ZodType {
  if (field.kind === 'reference') return field.nullable ? graphqlId.nullable() : graphqlId;
  if (!field.input) throw new Error(`${resource.type}.${field.key} is written without a rule`);
  return field.input;
}

const cache = new WeakMap<Resource, Partial<Record<WriteOperation, z.ZodType>>>();

/** The rule of an operation's GraphQL input: each field it takes, required or optional as declared. */
export function graphqlInputSchema(resource: Resource, operation: WriteOperation): z.ZodType {
  const schemas = cache.get(resource) ?? {};
  cache.set(resource, schemas);
  return (schemas[operation] ??= z.object(
    Object.fromEntries(
      writableFields(resource, operation).map((field) => {
        const rule = valueRule(resource, field);
        return [field.key, field.write?.[operation] === 'required' ? rule : rule.optional()];
      }),
    ),
  ));
}
