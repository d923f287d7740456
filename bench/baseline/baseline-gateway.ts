/**
 * The docs-default baseline's gateway (issue 19): `@apollo/gateway` with `IntrospectAndCompose` over the baseline
 * subgraphs (users, and items for the entity join) and its default `RemoteGraphQLDataSource`, served by
 * `@apollo/server`'s standalone server: the gateway of Apollo's "Getting started with the gateway" page, no tuning.
 * Bundled into dist/tools/bench-baseline-gateway.js; the bench runner starts it with USERS_SUBGRAPH_URL,
 * ITEMS_SUBGRAPH_URL and PORT.
 */
import { ApolloGateway, IntrospectAndCompose } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';

async function main(): Promise<void> {
  const gateway = new ApolloGateway({
    supergraphSdl: new IntrospectAndCompose({
      subgraphs: [
        { name: 'users', url: process.env['USERS_SUBGRAPH_URL'] ?? 'http://127.0.0.1:4001/' },
        { name: 'items', url: process.env['ITEMS_SUBGRAPH_URL'] ?? 'http://127.0.0.1:4002/' },
      ],
    }),
  });
  const server = new ApolloServer({ gateway });
  const { url } = await startStandaloneServer(server, { listen: { port: Number(process.env['PORT'] ?? 0), host: '127.0.0.1' } });
  process.stdout.write(`baseline gateway at ${url}\n`);
  const stop = () => void server.stop().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`baseline gateway failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
