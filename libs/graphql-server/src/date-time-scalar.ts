/**
 * The `DateTime` scalar of every subgraph: graphql-scalars' output (RFC 3339 strings, from a Date or one), and inputs
 * checked by the contract's one rule (isRfc3339DateTime); anything else a client error (BAD_USER_INPUT), never a 500.
 */
import { GraphQLError, GraphQLScalarType, Kind, print, type ValueNode } from 'graphql';
import { DateTimeResolver } from 'graphql-scalars';
import { DATE_TIME_MESSAGE, isRfc3339DateTime } from '@platform/contracts';
import { AppError } from '@platform/errors';

const refusal = (shown: string) => `DateTime ${DATE_TIME_MESSAGE}; got ${shown}`;

const instantOf = (value: string): Date => new Date(value.toUpperCase());

export const DateTimeScalar = new GraphQLScalarType({
  ...DateTimeResolver.toConfig(),
  // A variable's value: graphql-js prefixes the variable and the path within it (`$filter` at `filter.occurredAfter`).
  parseValue(value: unknown): Date {
    if (isRfc3339DateTime(value)) return instantOf(value);
    throw new GraphQLError(refusal(JSON.stringify(value) ?? String(value)), {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  },
  // A literal is refused in validation, whose errors Apollo codes GRAPHQL_VALIDATION_FAILED: the AppError it carries
  // keeps it BAD_USER_INPUT in every server's formatError (maskGraphQLError).
  parseLiteral(node: ValueNode): Date {
    if (node.kind === Kind.STRING && isRfc3339DateTime(node.value)) return instantOf(node.value);
    const message = refusal(print(node));
    throw new GraphQLError(message, { nodes: node, originalError: new AppError('BAD_USER_INPUT', message) });
  },
});
