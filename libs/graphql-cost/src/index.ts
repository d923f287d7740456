/**
 * How an operation's depth and cost are measured, one way for both sides of the platform: GraphQL Armor's own rules
 * (depth with fragments flattened; cost: objects 2, scalars 1, x1.5 per level, lists times their `first`/`last`), with
 * the list sizes a request passes as variables written in as literals (Armor multiplies a list by a literal only).
 * The GraphQL servers refuse a client's operation by them (libs/graphql-server); the REST facade refuses an
 * `expand`/`fields` selection whose operation a server would refuse, before it sends it (apps/rest), and says by how
 * much. The two cannot drift apart: both run these rules with these options.
 */
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import {
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  Kind,
  validate,
  visit,
  type DocumentNode,
  type GraphQLError,
  type ValidationContext,
} from 'graphql';

/** The arguments that size a list (Armor's cost multiplies the list's cost by them). */
export const LIST_SIZE_ARGUMENTS: ReadonlySet<string> = new Set(['first', 'last']);

type RejectHandler = (context: ValidationContext | null, error: GraphQLError) => void;
type AcceptHandler = (context: ValidationContext | null, details: { n: number }) => void;

/** Armor's cost-limit options as every server and the facade use them: fragments flattened, a refusal reported. */
export const armorCostOptions = (
  maxCost: number,
  handlers: { onReject: RejectHandler[]; onAccept?: AcceptHandler[]; exposeLimits?: boolean },
) => ({
  maxCost,
  flattenFragments: true,
  propagateOnRejection: false,
  ...handlers,
});

/** Armor's max-depth options as every server and the facade use them. */
export const armorDepthOptions = (
  maxDepth: number,
  handlers: { onReject: RejectHandler[]; onAccept?: AcceptHandler[]; exposeLimits?: boolean },
) => ({
  n: maxDepth,
  flattenFragments: true,
  propagateOnRejection: false,
  ...handlers,
});

/** The document with each `first`/`last` variable written in as the literal the request gives it. */
export function withListSizes(document: DocumentNode, variables: Record<string, unknown>): DocumentNode {
  return visit(document, {
    Argument(node) {
      if (!LIST_SIZE_ARGUMENTS.has(node.name.value) || node.value.kind !== Kind.VARIABLE) return undefined;
      const value = variables[node.value.name.value];
      if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
      return { ...node, value: { kind: Kind.INT, value: String(Math.max(0, value)) } };
    },
  });
}

/** Armor's rules read the document only; validation needs some schema to run them. */
const ANY_SCHEMA = new GraphQLSchema({
  query: new GraphQLObjectType({ name: 'Query', fields: { unused: { type: GraphQLString } } }),
});

/** A measured value from Armor's report: what it accepted, or the `found N` of its refusal. */
const found = (message: string): number =>
  Number(/found (\d+(?:\.\d+)?)/.exec(message)?.[1] ?? Number.POSITIVE_INFINITY);

/**
 * The operation's depth and cost as a server would measure them with these limits and the request's variables (the
 * values past a limit are exact: Armor reports what it found).
 */
export function measureOperation(
  document: DocumentNode,
  variables: Record<string, unknown>,
  limits: { maxDepth: number; maxCost: number },
): { depth: number; cost: number } {
  let depth = 0;
  let cost = 0;
  validate(ANY_SCHEMA, withListSizes(document, variables), [
    maxDepthRule(
      armorDepthOptions(limits.maxDepth, {
        exposeLimits: true,
        onAccept: [(_context, { n }) => (depth = n)],
        onReject: [(_context, error) => (depth = found(error.message))],
      }),
    ),
    costLimitRule(
      armorCostOptions(limits.maxCost, {
        exposeLimits: true,
        onAccept: [(_context, { n }) => (cost = n)],
        onReject: [(_context, error) => (cost = found(error.message))],
      }),
    ),
  ]);
  return { depth, cost };
}
