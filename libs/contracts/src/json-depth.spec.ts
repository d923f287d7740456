/** jsonTooDeep: where a parsed JSON value first nests too deep, found without recursion (also 100,000 levels deep). */
import { jsonTooDeep, jsonTooDeepMessage, MAX_JSON_DEPTH } from './json-depth';

const nested = (levels: number, leaf: unknown = 'x'): unknown => {
  let value = leaf;
  for (let i = 0; i < levels; i += 1) value = i % 2 === 0 ? { name: value } : [value];
  return value;
};

describe('jsonTooDeep', () => {
  it('when a value nests exactly the limit, then it passes; one level more is refused', () => {
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH + 1))).toEqual({ under: 'name' });
  });

  it('when scalars sit at the deepest level, then they add no level', () => {
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH, 5))).toBeUndefined();
    expect(jsonTooDeep('x')).toBeUndefined();
    expect(jsonTooDeep(null)).toBeUndefined();
  });

  it('when 100,000 levels are parsed from text, then the answer names the top-level member, without a stack overflow', () => {
    const text = `{"query":"{ a }","variables":${'{"f":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
    expect(jsonTooDeep(JSON.parse(text))).toEqual({ under: 'variables' });
  });

  it('when a wide, shallow value is checked, then it passes', () => {
    expect(jsonTooDeep({ list: Array.from({ length: 10_000 }, (_, i) => ({ i, tags: [i] })) })).toBeUndefined();
  });

  it('when the message is built, then it names the member or the body', () => {
    expect(jsonTooDeepMessage('variables')).toBe('`variables` nests deeper than 32 levels of objects and arrays');
    expect(jsonTooDeepMessage(undefined)).toBe('the body nests deeper than 32 levels of objects and arrays');
  });
});
