/**
 * Federation over the real subgraph processes: one gateway query spanning items -> users -> posts is answered with one
 * fetch per subgraph, and the items and posts subgraphs each send exactly one MongoDB query for it (their dev-only
 * `extensions.mongoCommands`, counted by the driver's command monitoring). The command counts are a development
 * surface: items and posts subgraphs of their own in development mode, on the shared databases, report them. The
 * internal purge mutations are idempotent, refuse non-service callers and are hidden from the gateway.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ApolloGateway,
  RemoteGraphQLDataSource,
  type GraphQLDataSourceProcessOptions,
} from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { signInternalToken } from '@platform/auth';
import { DEVELOPMENT_MODE, http, stackSubgraphSecret, suiteApps } from '@platform/testing';
import { gatewayGraphql, member, rest, stack, type Member } from './test/resources-support';

/** What the gateway presents to the subgraphs: these tests call them directly, as the gateway does. */
const secretHeaders = { 'x-subgraph-secret': stackSubgraphSecret(stack) };

// Registrations hash passwords (argon2id) on a shared 2-core machine: allow more than jest's 5 s default.
jest.setTimeout(60_000);

interface Fetch {
  subgraph: string;
  mongoCommands: Record<string, number> | undefined;
}

interface RecordingContext {
  authorization: string;
  fetches: Fetch[];
}

/** Forwards the caller's token like the real gateway, and records every subgraph fetch with its reported commands. */
class RecordingDataSource extends RemoteGraphQLDataSource<RecordingContext> {
  constructor(
    private readonly subgraph: string,
    url: string,
  ) {
    super({ url });
  }

  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<RecordingContext>): void {
    // The subgraphs answer only callers holding the gateway's secret.
    request.http?.headers.set('x-subgraph-secret', stackSubgraphSecret(stack));
    if ('authorization' in context)
      request.http?.headers.set('authorization', (context as RecordingContext).authorization);
  }

  override async process(options: GraphQLDataSourceProcessOptions<RecordingContext>) {
    const response = await super.process(options);
    if ('fetches' in options.context) {
      (options.context as RecordingContext).fetches.push({
        subgraph: this.subgraph,
        mongoCommands: response.extensions?.['mongoCommands'] as Record<string, number> | undefined,
      });
    }
    return response;
  }
}

const SPANNING_QUERY = `query Spanning($ids: [ID!]) {
  items(first: 10, filter: { id: { in: $ids } }, sort: ["id"]) {
    nodes { id name owner { id username posts(first: 5) { id title } } }
  }
}`;

let server: ApolloServer<RecordingContext>;
const users: Member[] = [];
const itemIds: string[] = [];
/** Subgraphs that report their MongoDB commands (development mode), by name; the others are the shared stack's. */
const counting = new Map<string, string>();
const subgraphUrl = (name: string) => `${counting.get(name) ?? stack.urls[name]}/graphql`;
const developmentApps = suiteApps('federation-dev-');

beforeAll(async () => {
  for (const name of ['items', 'posts'] as const)
    counting.set(name, (await developmentApps.start(name, { ...DEVELOPMENT_MODE })).url);
  const supergraphSdl = readFileSync(
    join(stack.rootDir, 'dist', 'apps', 'gateway', 'supergraph.graphql'),
    'utf8',
  );
  const gateway = new ApolloGateway({
    supergraphSdl,
    buildService: ({ name }) => new RecordingDataSource(name, subgraphUrl(name)),
  });
  server = new ApolloServer<RecordingContext>({ gateway });
  await server.start();

  for (const prefix of ['feda', 'fedb', 'fedc']) users.push(await member(prefix));
  for (const [index, user] of users.entries()) {
    for (const n of [1, 2]) {
      expect(
        (
          await http.post(rest('/posts'), {
            token: user.token,
            json: { title: `${user.username} post ${n}`, body: 'b' },
          })
        ).status,
      ).toBe(201);
    }
    // Four items, the first owner has two of them.
    for (let copy = 0; copy < (index === 0 ? 2 : 1); copy += 1) {
      const item = await http.post(rest('/items/'), {
        token: user.token,
        json: { name: `${user.username} item ${copy}`, price: 1 },
      });
      itemIds.push(String(item.body.id));
    }
  }
});

afterAll(() => server?.stop());

describe('federation', () => {
  it('when a query spans items -> owner -> posts, then each subgraph is fetched once and items and posts each run one MongoDB query', async () => {
    const [first] = users;
    const context: RecordingContext = { authorization: `Bearer ${first!.token}`, fetches: [] };
    const response = await server.executeOperation(
      { query: SPANNING_QUERY, variables: { ids: itemIds } },
      { contextValue: context },
    );
    if (response.body.kind !== 'single') throw new Error('expected a single result');
    const result = response.body.singleResult;
    expect(result.errors).toBeUndefined();

    const nodes = (
      result.data as {
        items: { nodes: Array<{ owner: { username: string; posts: Array<{ title: string }> } }> };
      }
    ).items.nodes;
    expect(nodes.map((node) => node.owner.username)).toEqual([
      users[0]!.username,
      users[0]!.username,
      users[1]!.username,
      users[2]!.username,
    ]);
    for (const node of nodes) {
      expect(node.owner.posts.map((post) => post.title)).toEqual([
        `${node.owner.username} post 1`,
        `${node.owner.username} post 2`,
      ]);
    }

    const bySubgraph = (name: string) => context.fetches.filter((fetch) => fetch.subgraph === name);
    expect(context.fetches.map((fetch) => fetch.subgraph).sort()).toEqual(['items', 'posts', 'users']);
    // items: the root list (no totalCount selected: no count). posts: User.posts for all three owners in one `$in` find.
    expect(bySubgraph('items')[0]!.mongoCommands).toEqual({ find: 1 });
    expect(bySubgraph('posts')[0]!.mongoCommands).toEqual({ find: 1 });

    // The production gateway process answers the same query with the same data.
    const real = await http.graphql(
      gatewayGraphql,
      SPANNING_QUERY,
      { ids: itemIds },
      { token: first!.token },
    );
    expect(real.body).toEqual({ data: result.data });
  });

  it('when entities are resolved by reference in batches, then each subgraph answers N references with one query', async () => {
    const token = users[0]!.token;
    const posts = await http.get(rest(`/posts?author_id[in]=${users.map((u) => u.id).join(',')}`), { token });
    const representations = posts.body.map((post: { id: number }) => ({
      __typename: 'Post',
      id: String(post.id),
    }));
    expect(representations.length).toBe(6);
    const entities = await http.graphql(
      subgraphUrl('posts'),
      'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Post { id title comments(first: 3) { id } } } }',
      { r: representations },
      { token, headers: secretHeaders },
    );
    expect(entities.body.errors).toBeUndefined();
    expect(entities.body.data._entities).toHaveLength(6);
    // One `$in` for the six posts, one `$in` for all their comments.
    expect(entities.body.extensions.mongoCommands).toEqual({ find: 2 });

    const items = await http.graphql(
      subgraphUrl('items'),
      'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Item { id } ... on User { id items(first: 1) { id } } } }',
      {
        r: [
          ...itemIds.map((id) => ({ __typename: 'Item', id })),
          ...users.map((u) => ({ __typename: 'User', id: String(u.id) })),
        ],
      },
      { token, headers: secretHeaders },
    );
    expect(items.body.errors).toBeUndefined();
    expect(
      items.body.data._entities.slice(itemIds.length).map((u: { items: unknown[] }) => u.items.length),
    ).toEqual([1, 1, 1]);
    expect(items.body.extensions.mongoCommands).toEqual({ find: 2 });
  });
});

describe('user deletion cascade (internal purge mutations)', () => {
  const serviceToken = () => signInternalToken('users', stack.jwtSecret);
  const callSubgraph = (name: string, query: string, token: string, variables: Record<string, unknown>) =>
    http.graphql(`${stack.urls[name]}/graphql`, query, variables, { token, headers: secretHeaders });
  const PURGE_OWNER = 'mutation ($userId: ID!) { _purgeOwner(userId: $userId) }';
  const PURGE_AUTHOR = 'mutation ($userId: ID!) { _purgeAuthor(userId: $userId) }';
  /** Two fresh members: `gone` with an item and a post, `other` with a post. */
  const doomedAndKept = async (gonePrefix: string, otherPrefix: string) => {
    const [gone, other] = [await member(gonePrefix), await member(otherPrefix)];
    const item = await http.post(rest('/items/'), { token: gone.token, json: { name: 'doomed', price: 1 } });
    const ownPost = await http.post(rest('/posts'), { token: gone.token, json: { title: 'mine', body: 'b' } });
    const otherPost = await http.post(rest('/posts'), { token: other.token, json: { title: 'theirs', body: 'b' } });
    return { gone, other, item, ownPost, otherPost };
  };

  it('when a member or the gateway calls a purge, then it is refused', async () => {
    const caller = await member('purgx');
    const forbidden = await callSubgraph('items', PURGE_OWNER, caller.token, { userId: String(caller.id) });
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(
      (await callSubgraph('posts', PURGE_AUTHOR, caller.token, { userId: String(caller.id) })).body.errors[0]
        .extensions.code,
    ).toBe('FORBIDDEN');
    const hidden = await http.graphql(
      gatewayGraphql,
      PURGE_OWNER,
      { userId: String(caller.id) },
      { token: serviceToken() },
    );
    expect(hidden.body.errors[0].message).toContain('_purgeOwner');
    expect(hidden.body.data).toBeUndefined();
  });

  it("when a user's data is purged, then items, posts (with their comments and likes), comments and likes go, and like counts drop", async () => {
    const { gone, other, item, ownPost, otherPost } = await doomedAndKept('purga', 'purgb');
    const keptItem = await http.post(rest('/items/'), {
      token: other.token,
      json: { name: 'kept', price: 1 },
    });
    await http.post(rest(`/posts/${ownPost.body.id}/comments`), {
      token: other.token,
      json: { body: 'on a doomed post' },
    });
    await http.post(rest(`/posts/${ownPost.body.id}/like`), { token: other.token });
    const goneComment = await http.post(rest(`/posts/${otherPost.body.id}/comments`), {
      token: gone.token,
      json: { body: 'mine' },
    });
    const keptComment = await http.post(rest(`/posts/${otherPost.body.id}/comments`), {
      token: other.token,
      json: { body: 'kept' },
    });
    await http.post(rest(`/posts/${otherPost.body.id}/like`), { token: other.token });
    expect(
      (await http.post(rest(`/posts/${otherPost.body.id}/like`), { token: gone.token })).body.like_count,
    ).toBe(2);

    for (let attempt = 0; attempt < 2; attempt += 1) {
      // Twice: both mutations are idempotent.
      expect(
        (await callSubgraph('items', PURGE_OWNER, serviceToken(), { userId: String(gone.id) })).body.data,
      ).toEqual({ _purgeOwner: true });
      expect(
        (await callSubgraph('posts', PURGE_AUTHOR, serviceToken(), { userId: String(gone.id) })).body.data,
      ).toEqual({ _purgeAuthor: true });
    }

    const token = other.token;
    expect((await http.get(rest(`/items/${item.body.id}`), { token })).status).toBe(404);
    expect((await http.get(rest(`/items/${keptItem.body.id}`), { token })).status).toBe(200);
    expect((await http.get(rest(`/posts/${ownPost.body.id}`), { token })).status).toBe(404);
    expect((await http.get(rest(`/posts/${ownPost.body.id}/comments`), { token })).status).toBe(404);
    const survivor = await http.get(rest(`/posts/${otherPost.body.id}`), { token });
    expect(survivor.body.like_count).toBe(1);
    const comments = await http.get(rest(`/posts/${otherPost.body.id}/comments`), { token });
    expect(comments.body.map((c: { id: number }) => c.id)).toEqual([keptComment.body.id]);
    expect(comments.body.map((c: { id: number }) => c.id)).not.toContain(goneComment.body.id);
  });

  it('when a member deletes their own account over REST, then their items, posts and likes are gone too', async () => {
    const { gone, other, item, ownPost, otherPost } = await doomedAndKept('purgc', 'purgd');
    expect(
      (await http.post(rest(`/posts/${otherPost.body.id}/like`), { token: gone.token })).body.like_count,
    ).toBe(1);

    expect((await http.delete(rest(`/users/${gone.id}`), { token: gone.token })).status).toBe(204);

    const token = other.token;
    expect((await http.get(rest(`/items/${item.body.id}`), { token })).status).toBe(404);
    expect((await http.get(rest(`/posts/${ownPost.body.id}`), { token })).status).toBe(404);
    expect((await http.get(rest(`/posts/${otherPost.body.id}`), { token })).body.like_count).toBe(0);
  });
});
