/**
 * Every query shape the repositories issue has an index that serves it (issue 19; the rule is in docs/performance.md,
 * "Indexes"). An own system runs behind a wire-protocol recorder in front of an own FerretDB, so every command the
 * subgraphs send is captured as sent, with no hook in the services. The test drives the REST and GraphQL flows that
 * read and write users, credentials, tokens, API keys, items, posts, comments and likes (and a user's deletion, whose
 * purges reach every service), reduces each find / aggregate / count / update / delete / findAndModify to its shape
 * and checks it against what `listIndexes` reports for that collection.
 */
import { MongoClient } from 'mongodb';
import { makeTempDir } from '@platform/dev-stack';
import {
  http,
  isWholeCollection,
  servingIndex,
  shapeKey,
  shapesOf,
  startMongoWireRecorder,
  startOwnSystem,
  type IndexKey,
  type MongoWireRecorder,
  type OwnSystem,
  type QueryShape,
} from '@platform/testing';
import { issueTokens, registerAccount, type Account } from './test/accounts';

jest.setTimeout(300_000);

const ADMIN = { username: 'indexadmin', password: 'index-admin-password-1' };

/**
 * Reads of a whole collection by design, whatever the indexes: an unfiltered count (a listing's totalCount over no
 * filter) or scan. Each is named with why it stays; anything else without an index fails the test.
 */
const UNFILTERED_TOTAL =
  "an unfiltered listing's totalCount (countDocuments({})): exact, so it counts every document; on MongoDB 7 a " +
  'collection scan, linear in the collection (docs/performance.md, "Sizing")';
const WHOLE_COLLECTION_READS: Record<string, string> = {
  'api_users.users aggregate eq() sort() range()': UNFILTERED_TOTAL,
  'api_items.items aggregate eq() sort() range()': UNFILTERED_TOTAL,
  'api_posts.posts aggregate eq() sort() range()': UNFILTERED_TOTAL,
};

describe('every query shape has an index', () => {
  const dir = makeTempDir('index-coverage-');
  let own: OwnSystem;
  let recorder: MongoWireRecorder;
  const rest = (path: string) => `${own.system.urls.rest}${path}`;

  beforeAll(async () => {
    own = await startOwnSystem({
      dir: dir.path,
      admin: ADMIN,
      mongoUrlOf: async (ferretUrl) => {
        recorder = await startMongoWireRecorder(ferretUrl);
        return recorder.url;
      },
    });
  }, 240_000);

  afterAll(async () => {
    await own?.stop();
    await recorder?.close();
    dir.remove();
  });

  /** Sends a request and insists it succeeded: a flow that failed would leave its queries unrecorded. */
  const ok = async (label: string, request: Promise<{ status: number; text: string; body: unknown }>) => {
    const response = await request;
    if (response.status >= 300)
      throw new Error(`${label}: ${response.status} ${response.text.slice(0, 300)}`);
    return response.body as Record<string, unknown>;
  };

  /** Drives the flows that reach the database through REST, then through GraphQL. */
  async function driveFlows(): Promise<void> {
    const admin = (await issueTokens(own.system.urls.rest, ADMIN.username, ADMIN.password)).access_token;
    const alice: Account = await registerAccount(own.system.urls.rest, 'idxa');
    const bob: Account = await registerAccount(own.system.urls.rest, 'idxb');
    const doomed: Account = await registerAccount(own.system.urls.rest, 'idxc');
    const aliceTokens = await issueTokens(own.system.urls.rest, alice.username, alice.password);
    const token = aliceTokens.access_token;
    let bobToken = (await issueTokens(own.system.urls.rest, bob.username, bob.password)).access_token;
    const doomedToken = (await issueTokens(own.system.urls.rest, doomed.username, doomed.password))
      .access_token;

    // Tokens: JSON login, refresh rotation, logout.
    const json = (await ok(
      'auth/token',
      http.post(rest('/auth/token'), { json: { username: bob.username, password: bob.password } }),
    )) as { refresh_token: string };
    const rotated = (await ok(
      'refresh',
      http.post(rest('/auth/refresh'), { json: { refresh_token: json.refresh_token } }),
    )) as { refresh_token: string };
    await ok('logout', http.post(rest('/auth/logout'), { json: { refresh_token: rotated.refresh_token } }));

    // Users: reads, every filter and sort, each listing style, writes, state changes.
    await ok('me', http.get(rest('/users/me'), { token }));
    await ok('user', http.get(rest(`/users/${bob.id}`), { token }));
    for (const query of [
      '',
      `?username=${alice.username}`,
      `?email=${encodeURIComponent(alice.email)}`,
      '?role=member',
      '?is_active=true',
      '?sort=username',
      '?sort=-email',
      '?sort=role',
      '?sort=-is_active',
      '?sort=-id',
      '?pageSize=2',
      '?page=1&size=2',
      `?lastSeenId=${alice.id}&limit=5`,
      '?offset=1&limit=2',
    ]) {
      await ok(`users${query}`, http.get(rest(`/users/${query}`), { token }));
    }
    const firstPage = (await ok(
      'users page',
      http.get(rest('/users/?pageSize=1&sort=username'), { token }),
    )) as { pagination: { nextPageToken: string } };
    await ok(
      'users next page',
      http.get(
        rest(
          `/users/?pageSize=1&sort=username&pageToken=${encodeURIComponent(firstPage.pagination.nextPageToken)}`,
        ),
        { token },
      ),
    );
    await ok(
      'patch user',
      http.patch(rest(`/users/${alice.id}`), { token, json: { full_name: 'Alice Index' } }),
    );
    await ok(
      'put user',
      http.put(rest(`/users/${alice.id}`), {
        token,
        json: { email: `new-${alice.email}`, full_name: 'Alice Put' },
      }),
    );
    await ok('deactivate', http.post(rest(`/users/${bob.id}/deactivate`), { token: admin }));
    await ok('activate', http.post(rest(`/users/${bob.id}/activate`), { token: admin }));
    await ok(
      'reset password',
      http.post(rest(`/users/${bob.id}/reset-password`), {
        token: admin,
        json: { new_password: 'bob-new-password-2' },
      }),
    );
    // The reset revoked Bob's earlier tokens.
    bobToken = (await issueTokens(own.system.urls.rest, bob.username, 'bob-new-password-2')).access_token;

    // API keys: create, list, read with one, revoke.
    const key = (await ok(
      'api key',
      http.post(rest('/api-keys'), { token, json: { name: 'idx', scopes: ['items:read'] } }),
    )) as { id: number; key: string };
    await ok('api keys', http.get(rest('/api-keys'), { token }));
    await ok('items by api key', http.get(rest('/items/'), { headers: { 'x-api-key': key.key } }));
    await ok('revoke', http.delete(rest(`/api-keys/${key.id}`), { token }));

    // Items: writes, reads, every filter and sort, pages.
    const item = (await ok(
      'item',
      http.post(rest('/items/'), { token, json: { name: 'Lamp', price: 12.5 } }),
    )) as { id: number };
    await ok('item 2', http.post(rest('/items/'), { token: bobToken, json: { name: 'Desk', price: 120 } }));
    await ok(
      'doomed item',
      http.post(rest('/items/'), { token: doomedToken, json: { name: 'Mug', price: 3 } }),
    );
    await ok('get item', http.get(rest(`/items/${item.id}`), { token }));
    await ok('patch item', http.patch(rest(`/items/${item.id}`), { token, json: { price: 13 } }));
    await ok(
      'put item',
      http.put(rest(`/items/${item.id}`), { token, json: { name: 'Lamp 2', price: 14, description: null } }),
    );
    for (const query of [
      '',
      '?name=Desk',
      '?price[lt]=100',
      '?price[gt]=1&sort=price',
      `?owner_id=${alice.id}`,
      `?owner_id[in]=${alice.id},${bob.id}`,
      '?sort=-price',
      '?sort=name',
      '?sort=-owner_id',
      '?pageSize=1',
      '?page=1&size=1',
      '?lastSeenId=1&limit=5',
    ]) {
      await ok(`items${query}`, http.get(rest(`/items/${query}`), { token }));
    }

    // Posts, comments, likes, articles.
    const post = (await ok(
      'post',
      http.post(rest('/posts'), { token, json: { title: 'Indexes', body: 'All of them.' } }),
    )) as { id: number };
    const doomedPost = (await ok(
      'doomed post',
      http.post(rest('/posts'), { token: doomedToken, json: { title: 'Gone', body: 'Soon.' } }),
    )) as { id: number };
    await ok('get post', http.get(rest(`/posts/${post.id}`), { token }));
    await ok('patch post', http.patch(rest(`/posts/${post.id}`), { token, json: { title: 'Indexes 2' } }));
    await ok(
      'put post',
      http.put(rest(`/posts/${post.id}`), { token, json: { title: 'Indexes 3', body: 'Every one.' } }),
    );
    for (const query of [
      '',
      `?author_id=${alice.id}`,
      '?title=Gone',
      '?sort=title',
      '?sort=-author_id',
      '?pageSize=1',
      '?page=1&size=1',
    ]) {
      await ok(`posts${query}`, http.get(rest(`/posts${query}`), { token }));
    }
    const comment = (await ok(
      'comment',
      http.post(rest(`/posts/${post.id}/comments`), { token: bobToken, json: { body: 'Nice.' } }),
    )) as { id: number };
    await ok(
      'doomed comment',
      http.post(rest(`/posts/${post.id}/comments`), { token: doomedToken, json: { body: 'Bye.' } }),
    );
    await ok(
      'doomed comment on own post',
      http.post(rest(`/posts/${doomedPost.id}/comments`), { token, json: { body: 'Hm.' } }),
    );
    await ok('get comment', http.get(rest(`/posts/${post.id}/comments/${comment.id}`), { token }));
    await ok(
      'patch comment',
      http.patch(rest(`/posts/${post.id}/comments/${comment.id}`), {
        token: bobToken,
        json: { body: 'Nicer.' },
      }),
    );
    for (const query of [
      '',
      `?author_id=${bob.id}`,
      '?sort=-author_id',
      '?sort=-id',
      '?pageSize=1',
      '?page=1&size=1',
    ]) {
      await ok(`comments${query}`, http.get(rest(`/posts/${post.id}/comments${query}`), { token }));
    }
    await ok('like', http.post(rest(`/posts/${post.id}/like`), { token: bobToken }));
    await ok('doomed like', http.post(rest(`/posts/${post.id}/like`), { token: doomedToken }));
    await ok('like own', http.post(rest(`/posts/${doomedPost.id}/like`), { token }));
    await ok('unlike', http.delete(rest(`/posts/${post.id}/like`), { token: bobToken }));
    await ok('articles', http.get(rest(`/users/${alice.id}/articles`), { token }));
    await ok(
      'article comments',
      http.get(rest(`/users/${alice.id}/articles/${post.id}/comments`), { token }),
    );

    // GraphQL through the gateway: entity joins and connections with totalCount.
    const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
      const body = await ok(
        'graphql',
        http.post(`${own.system.urls.gateway}/graphql`, { token, json: { query, variables } }),
      );
      if (body['errors']) throw new Error(`graphql: ${JSON.stringify(body['errors'])}`);
    };
    await graphql(
      'query($id: ID!) { user(id: $id) { id items { id name } posts { id title comments { id author { id } } } } }',
      { id: String(alice.id) },
    );
    await graphql('query($id: ID!) { item(id: $id) { id owner { id username } } }', { id: String(item.id) });
    await graphql(
      'query($id: ID!) { post(id: $id) { id author { id } comments(first: 5) { id author { username } } } }',
      { id: String(post.id) },
    );
    await graphql(
      '{ users(first: 2, sort: ["-username"]) { totalCount nodes { id } } items(first: 2, filter: { price: { lt: 100 } }) { totalCount nodes { id owner { id } } } posts(first: 2) { totalCount nodes { id author { id } } } }',
    );
    await graphql('query($id: ID!) { comments(postId: $id, first: 2) { totalCount nodes { id } } }', {
      id: String(post.id),
    });

    // Deletions: a comment, a post (its comments and likes), an item, and a user (the purges in every service).
    await ok(
      'delete comment',
      http.delete(rest(`/posts/${post.id}/comments/${comment.id}`), { token: bobToken }),
    );
    await ok('delete item', http.delete(rest(`/items/${item.id}`), { token }));
    await ok('delete user', http.delete(rest(`/users/${doomed.id}`), { token: admin }));
    await ok('delete post', http.delete(rest(`/posts/${post.id}`), { token }));
  }

  it('when the REST and GraphQL flows run, then every find, aggregate, count, update and delete is served by an index', async () => {
    await driveFlows();
    // The purge of a deleted user finishes in the background: let it land before reading what was recorded.
    await new Promise((done) => setTimeout(done, 2_000));

    const shapes = new Map<string, QueryShape>();
    for (const command of recorder.commands)
      for (const shape of shapesOf(command)) shapes.set(shapeKey(shape), shape);
    // Enough of each service's flows were recorded for the check to mean something.
    const databases = new Set([...shapes.values()].map((s) => s.db));
    expect([...databases].sort()).toEqual(
      expect.arrayContaining(['api_auth', 'api_items', 'api_posts', 'api_users']),
    );

    const client = new MongoClient(own.ferret.url);
    const indexesOf = new Map<string, IndexKey[]>();
    try {
      for (const shape of shapes.values()) {
        const name = `${shape.db}.${shape.collection}`;
        if (indexesOf.has(name)) continue;
        const listed = await client
          .db(shape.db)
          .collection(shape.collection)
          .listIndexes()
          .toArray()
          .catch(() => []);
        indexesOf.set(
          name,
          listed.map((i) => ({
            name: String(i['name']),
            key: Object.entries(i['key'] as Record<string, number>),
            unique: i['unique'] === true,
          })),
        );
      }
    } finally {
      await client.close();
    }

    const missing: string[] = [];
    const wholeCollection: string[] = [];
    const report: string[] = [];
    for (const [key, shape] of [...shapes].sort(([a], [b]) => a.localeCompare(b))) {
      if (isWholeCollection(shape)) {
        report.push(`${key} -> whole collection`);
        if (!WHOLE_COLLECTION_READS[key]) wholeCollection.push(key);
        continue;
      }
      const index = servingIndex(indexesOf.get(`${shape.db}.${shape.collection}`) ?? [], shape);
      report.push(`${key} -> ${index?.name ?? 'MISSING'}`);
      if (!index) missing.push(key);
    }
    process.stdout.write(
      `[index coverage] ${shapes.size} distinct shapes from ${recorder.commands.length} commands:\n${report.join('\n')}\n`,
    );
    expect({ missing, wholeCollection }).toEqual({ missing: [], wholeCollection: [] });
  });
});
