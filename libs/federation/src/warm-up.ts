/**
 * Plans warmed at start: a known operation document (the facade's fixed ones) is run once as a dry run, so its parse,
 * validation and query plan are cached before the first real request needs them. A dry run gets placeholder values
 * for its required variables (the gateway checks variables before it plans) and never reaches a subgraph: the data
 * source answers it with no data, so even a mutation's dry run changes nothing.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  typeFromAST,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';

/** The facade's dry runs through the gateway process carry this header (and the facade proof, without which it is ignored). */
export const WARM_UP_HEADER = 'x-warm-up';

/** Error codes that mean the dry run did not get as far as a plan: the document or its variables were refused. */
export const NOT_PLANNED_CODES: readonly string[] = [
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
];

/** Only on a dry run: `warmUp` is set by the facade's own start-up calls, never from a client's input alone. */
export interface WarmUpContext {
  warmUp?: boolean;
}

/** A value of `type` the schema accepts: required fields and non-null types filled in, nullable ones left out. */
export function placeholderValue(type: GraphQLInputType): unknown {
  if (!isNonNullType(type)) return null;
  const inner = type.ofType;
  if (isListType(inner)) return [];
  if (isEnumType(inner)) return inner.getValues()[0]?.value ?? null;
  if (isInputObjectType(inner)) {
    const value: Record<string, unknown> = {};
    for (const field of Object.values(inner.getFields())) {
      if (isNonNullType(field.type) && field.defaultValue === undefined)
        value[field.name] = placeholderValue(field.type);
    }
    return value;
  }
  if (isScalarType(inner)) {
    switch (getNamedType(inner).name) {
      case 'Int':
      case 'Float':
        return 0;
      case 'Boolean':
        return false;
      default:
        return '0';
    }
  }
  return null;
}

/** Placeholder variables for every required variable of the operation. */
export function placeholderVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (!type || !isNonNullType(type) || definition.defaultValue) continue;
    variables[definition.variable.name.value] = placeholderValue(type);
  }
  return variables;
}

/** Gives a dry run its placeholder variables once the operation is known (before the gateway's executor runs). */
export function warmUpPlugin<TContext extends WarmUpContext>(): ApolloServerPlugin<TContext> {
  return {
    requestDidStart: ({ contextValue }) =>
      Promise.resolve(
        contextValue.warmUp
          ? {
              didResolveOperation: ({ request, operation, schema }) => {
                if (operation) request.variables = placeholderVariables(schema, operation);
                return Promise.resolve();
              },
            }
          : {},
      ),
  };
}
