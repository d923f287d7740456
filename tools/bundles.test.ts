/**
 * What each built process loads (dist/, made by tools/build.mjs before the tests): the REST facade reaches data only
 * through the gateway, so its bundle requires neither the MongoDB driver nor the Apollo subgraph kit nor GraphQL Armor's
 * plugin set (libs/graphql-server is tagged so that importing it from apps/rest is a lint error; this checks the
 * result). The one Armor piece it carries is the cost rule: an `expand` is refused for its cost before it is sent, by
 * the rule the gateway applies (ADR 0027), not by a second estimate.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..');
const requiresOf = (app: string): string[] => {
  const bundle = readFileSync(join(root, 'dist', 'apps', app, 'main.js'), 'utf8');
  return [...new Set([...bundle.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!))].sort();
};

describe('process bundles', () => {
  it('when the REST facade is built, then it requires no MongoDB driver, Apollo subgraph kit or Armor beyond its measuring rules (depth, cost)', () => {
    const required = requiresOf('rest');
    expect(required).toContain('express');
    expect(
      required.filter(
        (name) =>
          /^(mongodb|@apollo\/subgraph|@escape\.tech\/)/.test(name) &&
          // Armor's two measuring rules (libs/graphql-cost), not its server plugins.
          !['@escape.tech/graphql-armor-cost-limit', '@escape.tech/graphql-armor-max-depth'].includes(name),
      ),
    ).toEqual([]);
  });

  it('when a subgraph is built, then it carries the subgraph kit and the limits', () => {
    const required = requiresOf('items');
    expect(required).toEqual(
      expect.arrayContaining(['mongodb', '@apollo/subgraph', '@escape.tech/graphql-armor']),
    );
  });
});
