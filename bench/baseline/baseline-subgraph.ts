/**
 * The docs-default baseline's subgraphs (issue 19; items and the write added for issue 29): an `@apollo/subgraph`
 * schema served by `@apollo/server`'s standalone server, reading and writing the bench's seeded collections with the
 * official driver, as Apollo's subgraph docs and the MongoDB Node.js quick start show it: defaults everywhere, no
 * tuning, no auth. `SUBGRAPH=users` (the default) serves users, `user(id)`, the entity reference and `updateUser`
 * (one `findOneAndUpdate` by id: the write a docs-default resolver makes, the same filter and `$set` as the floor's
 * `updateOne`, answering the updated user in the same round trip); `SUBGRAPH=items` serves `item(id)` with its
 * `owner` (a User reference the users subgraph resolves). Bundled into dist/tools/bench-baseline-subgraph.js; the
 * bench runner starts it with SUBGRAPH, MONGO_URL and PORT.
 */
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema, type GraphQLResolverMap } from '@apollo/subgraph';
import { parse, type DocumentNode } from 'graphql';
import { MongoClient, type Db } from 'mongodb';
import type { BenchItem, BenchUser } from '../bench-user';

const USERS = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.5", import: ["@key"])

  type User @key(fields: "id") {
    id: ID!
    username: String!
    email: String!
    fullName: String
    isActive: Boolean!
    role: String!
  }

  input UpdateUserInput {
    fullName: String
  }

  type Query {
    user(id: ID!): User
  }

  type Mutation {
    updateUser(id: ID!, input: UpdateUserInput!): User!
  }
`);

const ITEMS = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.5", import: ["@key"])

  type User @key(fields: "id", resolvable: false) {
    id: ID!
  }

  type Item @key(fields: "id") {
    id: ID!
    name: String!
    description: String
    price: Float!
    ownerId: ID
    owner: User
  }

  type Query {
    item(id: ID!): Item
  }
`);

function usersSubgraph(db: Db): { typeDefs: DocumentNode; resolvers: GraphQLResolverMap<unknown> } {
  const users = db.collection<BenchUser>('users');
  const shape = (doc: BenchUser | null) =>
    doc && { id: String(doc._id), username: doc.username, email: doc.email, fullName: doc.fullName, isActive: doc.isActive, role: doc.role };
  const byId = async (id: string) => shape(await users.findOne({ _id: Number(id) }));
  return {
    typeDefs: USERS,
    resolvers: {
      Query: { user: (_: unknown, args: { id: string }) => byId(args.id) },
      Mutation: {
        updateUser: async (_: unknown, args: { id: string; input: { fullName?: string | null } }) => {
          const updated = await users.findOneAndUpdate(
            { _id: Number(args.id) },
            { $set: { fullName: args.input.fullName ?? null, updatedAt: new Date() } },
            { returnDocument: 'after' },
          );
          if (!updated) throw new Error('User not found');
          return shape(updated);
        },
      },
      User: { __resolveReference: (ref: { id: string }) => byId(ref.id) },
    } as GraphQLResolverMap<unknown>,
  };
}

function itemsSubgraph(db: Db): { typeDefs: DocumentNode; resolvers: GraphQLResolverMap<unknown> } {
  const items = db.collection<BenchItem>('items');
  const byId = async (id: string) => {
    const doc = await items.findOne({ _id: Number(id) });
    return (
      doc && {
        id: String(doc._id),
        name: doc.name,
        description: doc.description,
        price: doc.priceCents / 100,
        ownerId: doc.ownerId === null ? null : String(doc.ownerId),
      }
    );
  };
  return {
    typeDefs: ITEMS,
    resolvers: {
      Query: { item: (_: unknown, args: { id: string }) => byId(args.id) },
      Item: {
        owner: (item: { ownerId: string | null }) => (item.ownerId === null ? null : { __typename: 'User', id: item.ownerId }),
        __resolveReference: (ref: { id: string }) => byId(ref.id),
      },
    } as GraphQLResolverMap<unknown>,
  };
}

async function main(): Promise<void> {
  const which = process.env['SUBGRAPH'] ?? 'users';
  if (which !== 'users' && which !== 'items') throw new Error(`SUBGRAPH is users or items, not ${which}`);
  const client = new MongoClient(process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017/');
  await client.connect();
  const db = client.db(process.env['MONGO_DB'] ?? `api_${which}`);
  const server = new ApolloServer({ schema: buildSubgraphSchema([which === 'users' ? usersSubgraph(db) : itemsSubgraph(db)]) });
  const { url } = await startStandaloneServer(server, { listen: { port: Number(process.env['PORT'] ?? 0), host: '127.0.0.1' } });
  process.stdout.write(`baseline ${which} subgraph at ${url}\n`);
  const stop = () => void server.stop().then(() => client.close()).then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`baseline subgraph failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
