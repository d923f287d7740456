/**
 * What one GraphQL operation may ask of the gateway: a maximum selection depth and alias count (validation rules,
 * checked once per document and cached with it) and a maximum estimated cost (checked per request, because list
 * sizes often come from variables). Every refusal is a 400 GRAPHQL_VALIDATION_FAILED naming the limit.
 */
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import {
  GraphQLError,
  Kind,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  isInterfaceType,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
} from 'graphql';

export interface GraphQLLimits {
  /** Deepest field nesting (a root field is depth 1); introspection fields are not counted. */
  maxDepth: number;
  /** Aliased fields per operation, fragments expanded. */
  maxAliases: number;
  /** Estimated objects an operation may return (see `operationCost`). */
  maxCost: number;
}

export const DEFAULT_GRAPHQL_LIMITS: GraphQLLimits = { maxDepth: 10, maxAliases: 30, maxCost: 25_000 };

/** List-size arguments, in the order they are looked for. */
const SIZE_ARGUMENTS = ['first', 'last', 'limit', 'pageSize', 'size'];
/** Assumed length of a list whose size nothing bounds. */
const UNBOUNDED_LIST_SIZE = 10;

const refuse = (message: string) =>
  new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } });

function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return fragments;
}

/** Depth of a selection set, fragments expanded once per path (cycles are another rule's error). */
function depthOf(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, seen: ReadonlySet<string>): number {
  let deepest = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value.startsWith('__')) continue;
      deepest = Math.max(deepest, 1 + (selection.selectionSet ? depthOf(selection.selectionSet, fragments, seen) : 0));
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      deepest = Math.max(deepest, depthOf(selection.selectionSet, fragments, seen));
    } else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      if (!fragment || seen.has(name)) continue;
      deepest = Math.max(deepest, depthOf(fragment.selectionSet, fragments, new Set([...seen, name])));
    }
  }
  return deepest;
}

function aliasesOf(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, seen: ReadonlySet<string>): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.alias) count += 1;
      if (selection.selectionSet) count += aliasesOf(selection.selectionSet, fragments, seen);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      count += aliasesOf(selection.selectionSet, fragments, seen);
    } else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      if (!fragment || seen.has(name)) continue;
      count += aliasesOf(fragment.selectionSet, fragments, new Set([...seen, name]));
    }
  }
  return count;
}

const operationLabel = (operation: OperationDefinitionNode) => (operation.name ? `Operation "${operation.name.value}"` : 'The operation');

export function depthLimitRule(maxDepth: number): ValidationRule {
  return (context: ValidationContext) => ({
    OperationDefinition(operation) {
      const depth = depthOf(operation.selectionSet, fragmentsOf(context.getDocument()), new Set());
      if (depth > maxDepth) {
        context.reportError(refuse(`${operationLabel(operation)} has depth ${depth}, more than the maximum of ${maxDepth}.`));
      }
    },
  });
}

export function aliasLimitRule(maxAliases: number): ValidationRule {
  return (context: ValidationContext) => ({
    OperationDefinition(operation) {
      const aliases = aliasesOf(operation.selectionSet, fragmentsOf(context.getDocument()), new Set());
      if (aliases > maxAliases) {
        context.reportError(refuse(`${operationLabel(operation)} uses ${aliases} aliases, more than the maximum of ${maxAliases}.`));
      }
    },
  });
}

function intValue(node: ValueNode, variables: Record<string, unknown>): number | undefined {
  if (node.kind === Kind.INT) return Number(node.value);
  if (node.kind === Kind.VARIABLE) {
    const value = variables[node.name.value];
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  }
  return undefined;
}

/** The list size a field asks for: its size argument (literal, variable or schema default), if it has one. */
function requestedSize(field: FieldNode, definition: GraphQLField<unknown, unknown>, variables: Record<string, unknown>): number | undefined {
  for (const name of SIZE_ARGUMENTS) {
    const argument = definition.args.find((arg) => arg.name === name);
    if (!argument) continue;
    const given = field.arguments?.find((arg) => arg.name.value === name);
    const value = given ? intValue(given.value, variables) : undefined;
    if (value !== undefined) return Math.max(0, value);
    if (typeof argument.defaultValue === 'number') return argument.defaultValue;
    return UNBOUNDED_LIST_SIZE;
  }
  return undefined;
}

function fieldsOf(type: GraphQLNamedType): Record<string, GraphQLField<unknown, unknown>> | undefined {
  return isObjectType(type) || isInterfaceType(type) ? type.getFields() : undefined;
}

/**
 * Estimated number of objects an operation returns: each object-valued field counts once per object it can yield,
 * a list yields as many as its size argument asks (or a connection's size argument, for the list inside it, or
 * 10 when nothing bounds it), and nested lists multiply. Scalars are free.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> = {},
): number {
  const fragments = fragmentsOf(document);
  const root =
    operation.operation === 'mutation'
      ? schema.getMutationType()
      : operation.operation === 'subscription'
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  if (!root) return 0;

  const selectionCost = (selectionSet: SelectionSetNode, parent: GraphQLNamedType, pendingSize: number | undefined, seen: ReadonlySet<string>): number => {
    let total = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? (schema.getType(selection.typeCondition.name.value) ?? parent) : parent;
        total += selectionCost(selection.selectionSet, type, pendingSize, seen);
        continue;
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (!fragment || seen.has(name)) continue;
        const type = schema.getType(fragment.typeCondition.name.value) ?? parent;
        total += selectionCost(fragment.selectionSet, type, pendingSize, new Set([...seen, name]));
        continue;
      }
      if (selection.name.value.startsWith('__') || !selection.selectionSet) continue;
      const definition = fieldsOf(parent)?.[selection.name.value];
      if (!definition) continue;
      const type = getNamedType(definition.type);
      const size = requestedSize(selection, definition, variables);
      const isList = isListType(getNullableType(definition.type));
      // A sized list yields `size` objects; a sized connection object passes its size on to the list inside it.
      const count = isList ? (size ?? pendingSize ?? UNBOUNDED_LIST_SIZE) : 1;
      const passOn = isList ? undefined : size;
      const children = selectionCost(selection.selectionSet, type, passOn, seen);
      total += count * (1 + children);
    }
    return total;
  };
  return selectionCost(operation.selectionSet, root, undefined, new Set());
}

/** Refuses an operation whose estimated cost exceeds `maxCost`, before any subgraph is asked. */
export function costLimitPlugin<TContext extends BaseContext>(maxCost: number): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          if (!operation) return;
          const cost = operationCost(schema, document, operation, request.variables ?? {});
          if (cost > maxCost) {
            throw refuse(`${operationLabel(operation)} has an estimated cost of ${cost}, more than the maximum of ${maxCost}.`);
          }
        },
      };
    },
  };
}
