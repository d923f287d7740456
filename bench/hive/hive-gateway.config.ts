/**
 * Hive Gateway (`@graphql-hive/gateway`) in front of our own subgraphs, as the bench's peer gateway (issue 29): its CLI
 * started the way its docs show for a supergraph file (`hive-gateway supergraph <file> -c <this config>`), on the
 * supergraph our build composes (dist/apps/gateway/supergraph.graphql) and over our four subgraph processes, so the
 * gateway is the only difference. Everything else is Hive's default (in-flight deduplication of identical subgraph
 * queries included); no reporting: usage reporting and tracing exist only with a Hive or Apollo token
 * (`--hive-access-token`, `APOLLO_KEY`), which the runner never passes, and the supergraph is a local file, so nothing
 * is fetched from a CDN. Bundled into dist/tools/bench-hive-gateway.config.js; the runner sets the subgraph URLs,
 * SUBGRAPH_SECRET and HIVE_LOG_LEVEL.
 *
 * What it adds for our subgraphs, the minimum they need: the `x-subgraph-secret` our subgraphs require of every caller,
 * and the client's `Authorization` passed on (each subgraph verifies the bearer token itself). What it does not do that
 * our gateway does is listed in docs/performance.md ("The peers").
 */
import { defineConfig } from '@graphql-hive/gateway';

const SUBGRAPHS = ['users', 'items', 'auth', 'posts'] as const;

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const subgraphSecret = required('SUBGRAPH_SECRET');

export const gatewayConfig = defineConfig({
  // Our supergraph names placeholder URLs (http://<name>.invalid/graphql): each subgraph's real one comes from here.
  transportEntries: Object.fromEntries(
    SUBGRAPHS.map((name) => [name, { location: required(`${name.toUpperCase()}_SUBGRAPH_URL`), headers: [['x-subgraph-secret', subgraphSecret]] }]),
  ),
  propagateHeaders: {
    fromClientToSubgraphs: ({ request }) => {
      const authorization = request.headers.get('authorization');
      return authorization ? { authorization } : {};
    },
  },
  logging: (process.env['HIVE_LOG_LEVEL'] as 'debug' | 'info' | 'warn' | 'error' | undefined) ?? 'info',
});
