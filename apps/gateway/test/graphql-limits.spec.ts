/** The gateway's operation limits as pure functions over a schema: depth, aliases and the cost estimate. */
import { buildSchema, parse, specifiedRules, validate, type OperationDefinitionNode } from 'graphql';
import { aliasLimitRule, depthLimitRule, operationCost } from '../src/graphql-limits';

const schema = buildSchema(`
  type PageInfo { endCursor: String hasNextPage: Boolean! }
  type User { id: ID! name: String! friends: [User!]! posts(first: Int = 20): [Post!]! best: User }
  type Post { id: ID! title: String! comments(first: Int = 20): [Comment!]! author: User }
  type Comment { id: ID! body: String! author: User }
  type UserConnection { nodes: [User!]! pageInfo: PageInfo! totalCount: Int! }
  type Query { me: User users(first: Int = 20, after: String): UserConnection! user(id: ID!): User }
`);

const errorsOf = (query: string, rules = [depthLimitRule(4), aliasLimitRule(3)]) =>
  validate(schema, parse(query), [...specifiedRules, ...rules]).map((e) => e.message);

const costOf = (query: string, variables: Record<string, unknown> = {}) => {
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === 'OperationDefinition') as OperationDefinitionNode;
  return operationCost(schema, document, operation, variables);
};

describe('depth limit', () => {
  it('when an operation is as deep as allowed, then it passes', () => {
    expect(errorsOf('{ me { best { best { id } } } }')).toEqual([]);
  });

  it('when an operation is one level deeper than allowed, then it is refused naming the depth and the maximum', () => {
    expect(errorsOf('query Deep { me { best { best { best { id } } } } }')).toEqual([
      'Operation "Deep" has depth 5, more than the maximum of 4.',
    ]);
  });

  it('when fragments hide the nesting, then they are expanded and still counted', () => {
    const query = 'query { me { ...A } } fragment A on User { best { ...B } } fragment B on User { best { best { id } } }';
    expect(errorsOf(query)).toEqual(['The operation has depth 5, more than the maximum of 4.']);
  });

  it('when introspection fields are nested, then they do not count towards depth', () => {
    expect(errorsOf('{ me { best { best { __typename } } } }')).toEqual([]);
  });
});

describe('alias limit', () => {
  it('when an operation uses the allowed number of aliases, then it passes', () => {
    expect(errorsOf('{ a: user(id: 1) { id } b: user(id: 2) { id } c: user(id: 3) { id } }')).toEqual([]);
  });

  it('when an operation uses more aliases than allowed (fragments included), then it is refused', () => {
    const query = '{ a: user(id: 1) { ...F } b: user(id: 2) { ...F } } fragment F on User { x: id y: name }';
    expect(errorsOf(query)).toEqual(['The operation uses 6 aliases, more than the maximum of 3.']);
  });
});

describe('cost estimate', () => {
  it('when only scalars of one object are read, then the cost is one', () => {
    expect(costOf('{ me { id name } }')).toBe(1);
  });

  it('when a connection is sized by a literal, then its nodes cost that many, not the pageInfo', () => {
    // users (1) + nodes (50) + pageInfo (1)
    expect(costOf('{ users(first: 50) { nodes { id } pageInfo { hasNextPage } totalCount } }')).toBe(52);
  });

  it('when the size comes from a variable, then the variable value is used; absent, the schema default', () => {
    expect(costOf('query ($n: Int) { users(first: $n) { nodes { id } } }', { n: 1000 })).toBe(1001);
    expect(costOf('query ($n: Int) { users(first: $n) { nodes { id } } }')).toBe(21);
  });

  it('when lists nest, then their sizes multiply', () => {
    // users 1 + 10 nodes x (1 + 20 posts x (1 + 5 comments))
    expect(costOf('{ users(first: 10) { nodes { posts { comments(first: 5) { id } } } } }')).toBe(1 + 10 * (1 + 20 * (1 + 5)));
  });

  it('when a list has no size argument, then it is assumed to hold ten', () => {
    expect(costOf('{ me { friends { id } } }')).toBe(1 + 10);
  });
});
