import { buildSchema, parse, type OperationDefinitionNode } from 'graphql';
import { placeholderVariables } from './warm-up';

const schema = buildSchema(`
  enum Order { ASC DESC }
  input Range { lt: Int, gt: Int }
  input Filter { name: String, price: Range, order: Order! = ASC }
  input CreateInput { name: String!, price: Int!, tags: [String!]!, order: Order!, nested: Range, owner: OwnerInput! }
  input OwnerInput { id: ID!, active: Boolean! }
  type Query { items(filter: Filter, first: Int): [String] }
  type Mutation { create(input: CreateInput!, ratio: Float!, note: String): String }
`);

/** The placeholder variables of the document's first operation against `schema`. */
const placeholdersFor = (document: string) =>
  placeholderVariables(schema, parse(document).definitions[0] as OperationDefinitionNode);

describe('placeholderVariables', () => {
  it('when every variable is optional, then none is filled in', () => {
    expect(placeholdersFor('query Q($filter: Filter, $first: Int = 20) { items(filter: $filter, first: $first) }')).toEqual(
      {},
    );
  });

  it('when variables are required, then each gets a value of its type and input objects only their required fields', () => {
    const variables = placeholdersFor(
      'mutation M($input: CreateInput!, $ratio: Float!, $note: String) { create(input: $input, ratio: $ratio, note: $note) }',
    );
    expect(variables).toEqual({
      input: { name: '0', price: 0, tags: [], order: 'ASC', owner: { id: '0', active: false } },
      ratio: 0,
    });
  });

  it('when a required variable has a default in the document, then it is left to that default', () => {
    expect(placeholdersFor('mutation M($ratio: Float! = 1.5) { create(input: null, ratio: $ratio) }')).toEqual({});
  });
});
