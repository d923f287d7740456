/**
 * What one GraphQL operation may ask of a server (the gateway and every subgraph alike), checked by GraphQL Armor's
 * rules during validation, i.e. before any query plan, resolver or subgraph call: depth, aliases, directives and an
 * estimated cost, each counted with fragments expanded and memoised per fragment (a 2^25 fan-out document costs
 * microseconds to refuse, not its expansion). Every refusal is a 400 GRAPHQL_VALIDATION_FAILED naming the limit.
 *
 * One addition by hand: Armor's cost rule multiplies a list by its `first`/`last` argument only when that is a literal,
 * and validation (cached per document) cannot see variables. So an operation whose list sizes come from variables is
 * costed again per request, by the same Armor rule over the document with those values written in.
 */
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import {
  GraphQLError,
  Kind,
  validate,
  visit,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { graphqlLimitsRefused } from '@platform/metrics';
import {
  armorCostOptions,
  armorDepthOptions,
  LIST_SIZE_ARGUMENTS,
  withListSizes,
} from '@platform/graphql-cost';

export interface GraphQLLimits {
  /** Deepest field nesting (fragments do not add depth; introspection's `__schema` is not counted). */
  maxDepth: number;
  /** Aliased fields per operation, fragments expanded. */
  maxAliases: number;
  /** Directives per operation, fragments expanded. */
  maxDirectives: number;
  /** Armor's estimated cost: objects 2, scalars 1, x1.5 per level, lists times their `first`/`last`. */
  maxCost: number;
}

export const DEFAULT_GRAPHQL_LIMITS: GraphQLLimits = {
  maxDepth: 10,
  maxAliases: 30,
  maxDirectives: 20,
  maxCost: 25_000,
};

const refused = (message: string) =>
  new GraphQLError(message.replace(/^Syntax Error: /, ''), {
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
  });

/**
 * Armor's rules report into the validation context (a 400 from Apollo), never throw (which would be a 500); each
 * refusal is counted by its limit (graphql_limits_refused_total).
 */
const reportAs =
  (limit: 'depth' | 'aliases' | 'directives' | 'cost') =>
  (context: ValidationContext | null, error: GraphQLError) => {
    graphqlLimitsRefused.inc({ limit });
    context?.reportError(refused(error.message));
  };

const costOptions = (maxCost: number) => armorCostOptions(maxCost, { onReject: [reportAs('cost')] });

export interface GraphQLLimitsSetup<TContext extends BaseContext> {
  validationRules: ValidationRule[];
  plugins: ApolloServerPlugin<TContext>[];
}

/**
 * The validation rules and plugins an ApolloServer gets: Armor's depth, alias, directive and cost limits; field
 * suggestions masked in production ("Did you mean ..." would describe the schema to a caller who cannot introspect it).
 * Armor's token limit stays off: graphql-js's own `parseOptions.maxTokens` bounds the parser without a second lexing pass.
 */
export function graphqlLimits<TContext extends BaseContext>(
  limits: GraphQLLimits,
  options: {
    production: boolean;
    /** The REST facade's own fixed documents (REST's `limit` reaches 1000): not costed again per request. */
    isFacadeCall?: ((context: TContext) => boolean) | undefined;
  },
): GraphQLLimitsSetup<TContext> {
  const armor = new ApolloArmor({
    maxDepth: armorDepthOptions(limits.maxDepth, { onReject: [reportAs('depth')] }),
    // Every alias counts, `__typename` too (Armor lets those through by default).
    maxAliases: {
      n: limits.maxAliases,
      allowList: [],
      propagateOnRejection: false,
      onReject: [reportAs('aliases')],
    },
    maxDirectives: {
      n: limits.maxDirectives,
      propagateOnRejection: false,
      onReject: [reportAs('directives')],
    },
    costLimit: costOptions(limits.maxCost),
    maxTokens: { enabled: false },
    blockFieldSuggestion: { enabled: options.production },
  }).protect();
  return {
    validationRules: [...armor.validationRules, finiteFloatLiterals],
    plugins: [
      operationResolutionPlugin<TContext>(),
      ...(armor.plugins as ApolloServerPlugin<TContext>[]),
      variableCostPlugin<TContext>(limits.maxCost, options.isFacadeCall ?? (() => false)),
    ],
  };
}

/** Per document: the variables its `first`/`last` arguments take (most operations: none, and they cost nothing here). */
const sizeVariablesOf = new WeakMap<DocumentNode, readonly string[]>();

function sizeVariables(document: DocumentNode): readonly string[] {
  let names = sizeVariablesOf.get(document);
  if (names === undefined) {
    const found = new Set<string>();
    visit(document, {
      Argument(node) {
        if (LIST_SIZE_ARGUMENTS.has(node.name.value) && node.value.kind === Kind.VARIABLE)
          found.add(node.value.name.value);
      },
    });
    names = [...found];
    sizeVariablesOf.set(document, names);
  }
  return names;
}

/** Verdicts per document and size values: a client repeats the same page sizes, so the rule runs once per combination. */
const verdicts = new WeakMap<DocumentNode, Map<string, string | null>>();
const VERDICTS_PER_DOCUMENT = 64;

/** Costs an operation again with its variable list sizes, before the gateway plans it or a resolver runs. */
export function variableCostPlugin<TContext extends BaseContext>(
  maxCost: number,
  isFacadeCall: (context: TContext) => boolean,
): ApolloServerPlugin<TContext> {
  const rule = costLimitRule(costOptions(maxCost));
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, request, contextValue }) {
          const names = sizeVariables(document);
          if (names.length === 0 || isFacadeCall(contextValue)) return;
          const variables = request.variables ?? {};
          const key = names.map((name) => String(variables[name])).join(',');
          let known = verdicts.get(document);
          if (!known) {
            known = new Map();
            verdicts.set(document, known);
          }
          let refusal = known.get(key);
          if (refusal === undefined) {
            const errors = validate(schema as GraphQLSchema, withListSizes(document, variables), [rule]);
            refusal = errors[0]?.message ?? null;
            if (known.size >= VERDICTS_PER_DOCUMENT) known.clear();
            known.set(key, refusal);
          }
          if (refusal !== null) throw refused(refusal);
        },
      };
    },
  };
}

/**
 * graphql-js's Float accepts a literal such as `1e400` as Infinity in a document (its variables path refuses it), and
 * no library rule covers it: refused here as the client error it is, instead of reaching a resolver or a plan.
 */
export const finiteFloatLiterals: ValidationRule = (context) => ({
  FloatValue(node) {
    if (!Number.isFinite(Number(node.value))) {
      context.reportError(
        new GraphQLError(`Float cannot represent ${node.value}: out of range.`, { nodes: node }),
      );
    }
  },
});

/**
 * An operationName the document does not define, or several operations and no name, is the client's error (400
 * OPERATION_RESOLUTION_FAILURE). Apollo Server leaves it to execution, where the gateway's executor turns it into a 500.
 */
export function operationResolutionPlugin<TContext extends BaseContext>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, request }) {
          if (operation) return;
          const name = request.operationName;
          throw new GraphQLError(
            name
              ? `Unknown operation named "${name.slice(0, 100)}".`
              : 'Must provide operation name if query contains multiple operations.',
            { extensions: { code: 'OPERATION_RESOLUTION_FAILURE', http: { status: 400 } } },
          );
        },
      };
    },
  };
}
