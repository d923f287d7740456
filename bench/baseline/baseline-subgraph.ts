/**
 * The docs-default baseline's subgraph (issue 19): an `@apollo/subgraph` schema served by `@apollo/server`'s
 * standalone server, reading the bench's seeded users collection with the official driver, as Apollo's subgraph
 * docs and the MongoDB Node.js quick start show it: defaults everywhere, no tuning. Bundled into
 * dist/tools/bench-baseline-subgraph.js; the bench runner starts it with MONGO_URL and PORT.
 */
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { MongoClient } from 'mongodb';
import type { BenchUser } from '../bench-user';


const typeDefs = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.5", import: ["@key"])

  type User @key(fields: "id") {
    id: ID!
    username: String!
    email: String!
    fullName: String
    isActive: Boolean!
    role: String!
  }

  type Query {
    user(id: ID!): User
  }
`);

async function main(): Promise<void> {
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017/');
  await client.connect();
  const users = client.db(process.env['MONGO_DB'] ?? 'api_users').collection<BenchUser>('users');
  const byId = async (id: string) => {
    const doc = await users.findOne({ _id: Number(id) });
    return doc && { id: String(doc._id), username: doc.username, email: doc.email, fullName: doc.fullName, isActive: doc.isActive, role: doc.role };
  };
  const resolvers = {
    Query: { user: (_: unknown, args: { id: string }) => byId(args.id) },
    User: { __resolveReference: (ref: { id: string }) => byId(ref.id) },
  };
  const server = new ApolloServer({ schema: buildSubgraphSchema([{ typeDefs, resolvers }]) });
  const { url } = await startStandaloneServer(server, { listen: { port: Number(process.env['PORT'] ?? 0), host: '127.0.0.1' } });
  process.stdout.write(`baseline subgraph at ${url}\n`);
  const stop = () => void server.stop().then(() => client.close()).then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`baseline subgraph failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
