import { parse, print } from 'graphql';
import { measureOperation, withListSizes } from './index';

const LIST = parse(`
  query ($n: Int, $other: Int) {
    items(first: $n, after: $other) { nodes { ...Item } }
  }
  fragment Item on Item { id name owner { id username } }
`);

describe('graphql-cost', () => {
  it('when a list size is a variable, then it is written in as the literal the request gives (other arguments kept)', () => {
    const text = print(withListSizes(LIST, { n: 25, other: 7 }));
    expect(text).toContain('items(first: 25, after: $other)');
    expect(print(withListSizes(LIST, { n: 'x' }))).toContain('first: $n');
    expect(print(withListSizes(LIST, { n: -3 }))).toContain('first: 0');
  });

  it('when an operation is measured, then the cost follows the page size and the depth counts fragments flattened', () => {
    const small = measureOperation(LIST, { n: 1 }, { maxDepth: 10, maxCost: 1_000_000 });
    const large = measureOperation(LIST, { n: 100 }, { maxDepth: 10, maxCost: 1_000_000 });
    expect(large.cost).toBeGreaterThan(small.cost * 50);
    expect(small.depth).toBe(large.depth);
    expect(small.depth).toBeGreaterThanOrEqual(3);
  });

  it('when an operation passes a limit, then the value measured is still exact (what Armor found), not the limit', () => {
    const within = measureOperation(LIST, { n: 100 }, { maxDepth: 10, maxCost: 1_000_000 });
    const past = measureOperation(LIST, { n: 100 }, { maxDepth: 1, maxCost: 10 });
    expect(past).toEqual(within);
  });
});
