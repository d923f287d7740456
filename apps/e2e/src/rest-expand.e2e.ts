/**
 * REST `expand` and `fields` over the real stack (issue 27 items 1-3 and 5, ADR 0027): one request answers what 1 + N
 * plain requests would; nesting, sparse fieldsets, the id always there; every expanded record authorized as if read on
 * its own (scopes, field rules such as `email`, inactive users); unknown names, too deep and too costly expansions
 * refused with the parameter named; ETags, 304, If-Match, Link headers, API versions and the read cache kept; and every
 * relation REST expands answered by GraphQL with the same authorization.
 */
import { relationsOf, RESOURCES } from '@platform/contracts';
import { http } from '@platform/testing';
import { adminToken, gatewayGraphql, member, rest, stack, type Member } from './test/resources-support';
import { waitFor } from './test/events-support';

jest.setTimeout(180_000);

let alice: Member;
let bob: Member;
let carol: Member;
let admin: string;
/** Alice's items, then bob's, then carol's (100 in all). */
const itemIds: number[] = [];
let postId: number;
const commentIds: number[] = [];

const get = (path: string, token: string, headers: Record<string, string> = {}) =>
  http.get(rest(path), { token, headers });
const withKey = (path: string, key: string) => http.get(rest(path), { headers: { 'x-api-key': key } });

async function apiKey(owner: Member, scopes: string[]): Promise<string> {
  const created = await http.post(rest('/api-keys'), { token: owner.token, json: { name: `k-${scopes.join('-')}`, scopes } });
  expect(created.status).toBe(201);
  return created.body.key as string;
}

beforeAll(async () => {
  alice = await member('expa');
  bob = await member('expb');
  carol = await member('expc');
  admin = await adminToken();
  for (const [owner, count] of [[alice, 40], [bob, 30], [carol, 30]] as const) {
    for (let i = 0; i < count; i += 1) {
      const created = await http.post(rest('/items/'), {
        token: owner.token,
        json: { name: `exp ${owner.username} ${i}`, description: i % 2 ? null : `d${i}`, price: i + 0.5 },
      });
      expect(created.status).toBe(201);
      itemIds.push(created.body.id);
    }
  }
  const post = await http.post(rest('/posts'), { token: alice.token, json: { title: 'Expanded', body: 'A post to expand.' } });
  postId = post.body.id;
  for (const author of [bob, carol, alice]) {
    const comment = await http.post(rest(`/posts/${postId}/comments`), { token: author.token, json: { body: `from ${author.username}` } });
    expect(comment.status).toBe(201);
    commentIds.push(comment.body.id);
  }
});

const pageOf100 = () => `/items/?owner_id[in]=${alice.id},${bob.id},${carol.id}&limit=100`;

describe('expand', () => {
  it('when a page of 100 items is read with expand=owner, then that one answer equals the plain page plus each owner read on its own', async () => {
    const expanded = await get(`${pageOf100()}&expand=owner`, alice.token);
    expect(expanded.status).toBe(200);
    expect(expanded.body).toHaveLength(100);
    const plain = await get(pageOf100(), alice.token);
    expect(expanded.body.map(({ owner: _owner, ...item }: Record<string, unknown>) => item)).toEqual(plain.body);
    const owners = new Map<number, unknown>();
    for (const item of plain.body as Array<{ owner_id: number }>) {
      // The N+1 client: one GET per item's owner.
      const owner = await get(`/users/${item.owner_id}`, alice.token);
      expect(owner.status).toBe(200);
      owners.set(item.owner_id, owner.body);
    }
    for (const item of expanded.body as Array<{ owner_id: number; owner: unknown }>) expect(item.owner).toEqual(owners.get(item.owner_id));
  });

  it('when a post is read with comma-separated and repeated, nested expansions, then each expanded record is its own GET', async () => {
    const read = await get(`/posts/${postId}?expand=author,comments&expand=comments.author`, bob.token);
    expect(read.status).toBe(200);
    expect(read.body.author).toEqual((await get(`/users/${alice.id}`, bob.token)).body);
    expect(read.body.comments.map((c: { id: number }) => c.id)).toEqual(commentIds);
    for (const comment of read.body.comments) {
      const { author, ...own } = comment;
      expect(own).toEqual((await get(`/posts/${postId}/comments/${comment.id}`, bob.token)).body);
      expect(author).toEqual((await get(`/users/${own.author_id}`, bob.token)).body);
    }
    const { author: _a, comments: _c, ...post } = read.body;
    expect(post).toEqual((await get(`/posts/${postId}`, bob.token)).body);
  });

  it('when a comment expands its post and that post its author, and a user its items, then each is nested where named', async () => {
    const comment = await get(`/posts/${postId}/comments/${commentIds[0]}?expand=post.author`, carol.token);
    expect(comment.status).toBe(200);
    expect(comment.body.post.id).toBe(postId);
    expect(comment.body.post.author.id).toBe(alice.id);
    const user = await get(`/users/${carol.id}?expand=items`, alice.token);
    expect(user.status).toBe(200);
    // An expanded list holds its first 20 records in id order.
    expect(user.body.items.map((item: { id: number }) => item.id)).toEqual(itemIds.slice(70, 90));
    const me = await get('/users/me?expand=posts', alice.token);
    expect(me.body.posts.map((post: { id: number }) => post.id)).toContain(postId);
  });

  it('when fields are chosen, then only they (and the id) come back, also inside an expansion, which a dotted field implies', async () => {
    const item = await get(`/items/${itemIds[0]}?fields=name,price`, bob.token);
    expect(item.body).toEqual({ id: itemIds[0], name: `exp ${alice.username} 0`, price: 0.5 });
    const owned = await get(`/items/${itemIds[0]}?fields=name,owner.email`, bob.token);
    expect(owned.body).toEqual({ id: itemIds[0], name: `exp ${alice.username} 0`, owner: { id: alice.id, email: expect.stringContaining('@') } });
    const whole = await get(`/items/${itemIds[0]}?fields=id,owner`, bob.token);
    expect(whole.body.owner).toEqual((await get(`/users/${alice.id}`, bob.token)).body);
    const listed = await get(`${pageOf100()}&fields=price`, bob.token);
    expect(listed.body[0]).toEqual({ id: itemIds[0], price: 0.5 });
  });

  it.each([
    ['an unknown relation', '/items/{item}?expand=buyer', 'buyer'],
    ['an unknown nested relation', '/items/{item}?expand=owner.friends', 'owner.friends'],
    ['an unknown field', '/items/{item}?fields=name,colour', 'colour'],
    ['an unknown field of an expansion', '/items/{item}?fields=owner.password', 'owner.password'],
    ['a malformed name', '/items/{item}?expand=Owner', 'Owner'],
    ['an expansion 5 levels deep', '/items/{item}?expand=owner.items.owner.items.owner', 'owner.items.owner.items.owner'],
  ])('when a read names %s, then 400 names it', async (_label, path, named) => {
    const response = await get(path.replace('{item}', String(itemIds[0])), alice.token);
    expect(response.status).toBe(400);
    expect(response.text).toContain(named);
  });

  it('when an expansion would cost more than the GraphQL cost limit, then 400 names expand and the cost; a smaller page fits', async () => {
    const costly = await get(`${pageOf100()}&expand=owner.posts.comments`, alice.token);
    expect(costly.status).toBe(400);
    expect(costly.text).toMatch(/expand: the operation would cost \d+; the limit is 25000/);
    expect((await get(`/items/?limit=5&expand=owner.posts`, alice.token)).status).toBe(200);
    const single = await get(`/posts/${postId}?expand=comments.author.posts.comments`, alice.token);
    expect(single.status).toBe(400);
    expect(single.text).toContain('expand: the operation would cost');
  });

  it("when a member expands another member's item owner who is deactivated, then the owner is null, as GET /users/{id} is 404", async () => {
    const dave = await member('expd');
    const item = await http.post(rest('/items/'), { token: dave.token, json: { name: 'left behind', price: 1 } });
    const deactivated = await http.post(rest(`/users/${dave.id}/deactivate`), { token: admin });
    expect(deactivated.status).toBe(200);
    expect((await get(`/users/${dave.id}`, alice.token)).status).toBe(404);
    const expanded = await get(`/items/${item.body.id}?expand=owner`, alice.token);
    expect(expanded.status).toBe(200);
    expect(expanded.body.owner).toBeNull();
    expect(expanded.body.owner_id).toBe(dave.id);
    // Not even its public profile, nor its id alone: the owner is null whatever fields name.
    expect((await get(`/items/${item.body.id}?fields=owner.username`, alice.token)).body.owner).toBeNull();
    expect((await get(`/items/${item.body.id}?fields=owner.id`, alice.token)).body.owner).toBeNull();
  });

  it('when an items:read key expands owner or names owner.email, then 403 names owner.email; the public profile reads', async () => {
    const key = await apiKey(alice, ['items:read']);
    for (const query of ['expand=owner', 'fields=id,owner.email']) {
      const refused = await withKey(`/items/${itemIds[40]}?${query}`, key);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('owner.email');
      expect(refused.text).toContain('users:read');
    }
    const listed = await withKey(`${pageOf100()}&expand=owner`, key);
    expect(listed.status).toBe(403);
    expect(listed.text).toContain('owner.email');
    const profile = await withKey(`/items/${itemIds[40]}?fields=owner.username`, key);
    expect(profile.status).toBe(200);
    // `fields` names only the owner's: the item shows every field of its own, the owner its public profile.
    expect(profile.body.owner).toEqual({ id: bob.id, username: bob.username });
    expect(profile.body.name).toBe(`exp ${bob.username} 0`);
  });

  it('when a users:read key expands items, or a posts:read key expands a comment author, then each needs its own scope', async () => {
    const usersOnly = await apiKey(alice, ['users:read']);
    const refused = await withKey(`/users/${bob.id}?expand=items`, usersOnly);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('items');
    expect(refused.text).toContain('items:read');
    const postsOnly = await apiKey(alice, ['posts:read']);
    const authored = await withKey(`/posts/${postId}?expand=comments.author`, postsOnly);
    expect(authored.status).toBe(403);
    expect(authored.text).toContain('comments.author.');
    expect((await withKey(`/posts/${postId}?fields=comments.author.username`, postsOnly)).status).toBe(200);
  });

  it('when an expanded read is tagged, then its strong ETag differs from the plain one, 304s, follows the expanded record, and If-Match takes it', async () => {
    const path = `/items/${itemIds[1]}`;
    const plain = await get(path, alice.token);
    const expanded = await get(`${path}?expand=owner`, alice.token);
    const partial = await get(`${path}?fields=name`, alice.token);
    const tags = [plain, expanded, partial].map((r) => r.headers.get('etag'));
    expect(new Set(tags).size).toBe(3);
    expect(tags[1]).toMatch(/^"\d+\.x[\w-]{22}\.r2"$/);
    expect((await get(`${path}?expand=owner`, alice.token, { 'if-none-match': tags[1]! })).status).toBe(304);
    // The owner changes: the item's version does not, the expanded answer's tag does.
    expect((await http.patch(rest(`/users/${alice.id}`), { token: alice.token, json: { full_name: 'Alice Expanded' } })).status).toBe(200);
    const after = await get(`${path}?expand=owner`, alice.token, { 'if-none-match': tags[1]! });
    expect(after.status).toBe(200);
    expect(after.body.owner.full_name).toBe('Alice Expanded');
    expect(after.headers.get('etag')).not.toBe(tags[1]);
    const written = await http.patch(rest(path), { token: alice.token, json: { price: 9 }, headers: { 'if-match': tags[1]! } });
    expect(written.status).toBe(200);
  });

  it('when a listing with expand and fields pages on, then its Link header keeps both, and the cursor works with them', async () => {
    const first = await get(`/items/?owner_id=${alice.id}&pageSize=10&expand=owner&fields=name,owner.username`, alice.token);
    expect(first.status).toBe(200);
    const next = /<([^>]+)>;\s*rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toContain('expand=owner');
    expect(next).toContain('fields=name%2Cowner.username');
    const second = await http.get(`${stack.restUrl}${next}`, { token: alice.token });
    expect(second.status).toBe(200);
    expect(second.body.data[0]).toEqual({ id: itemIds[10], name: `exp ${alice.username} 10`, owner: { id: alice.id, username: alice.username } });
  });

  it('when the users listing is read in v1 and v2, then fields name the version\'s fields and expansions are whole records', async () => {
    const v1 = await get(`/v1/users/?username=${alice.username}&limit=10&expand=items&fields=name,items.name`, admin);
    expect(v1.status).toBe(200);
    expect(v1.body[0]).toEqual({ id: alice.id, name: alice.username, items: expect.any(Array) });
    expect(Object.keys(v1.body[0].items[0]).sort()).toEqual(['id', 'name']);
    const v2 = await get(`/v2/users/?username=${alice.username}&limit=10&expand=posts`, admin);
    expect(Object.keys(v2.body[0]).sort()).toEqual(['email', 'id', 'name', 'posts']);
    expect(v2.body[0].posts[0]).toEqual((await get(`/posts/${postId}`, admin)).body);
    expect((await get(`/v1/items/${itemIds[2]}?expand=owner`, admin)).body.owner.id).toBe(alice.id);
  });
});

describe('GraphQL has every relation REST expands, with the same authorization', () => {
  /** Per relation: a REST read that expands it, the GraphQL query of the same, and a key scope that lacks the target's read scope. */
  const cases = () => [
    { relation: 'Item.owner', rest: `/items/${itemIds[0]}?fields=owner.email`, gql: `{ item(id: "${itemIds[0]}") { owner { id email } } }`, lacking: ['items:read'] },
    { relation: 'Post.author', rest: `/posts/${postId}?fields=author.email`, gql: `{ post(id: "${postId}") { author { id email } } }`, lacking: ['posts:read'] },
    { relation: 'Post.comments', rest: `/posts/${postId}?fields=comments.body`, gql: `{ post(id: "${postId}") { comments(first: 20) { id body } } }`, lacking: ['users:read'] },
    { relation: 'Comment.author', rest: `/posts/${postId}/comments/${commentIds[0]}?fields=author.role`, gql: `{ comment(id: "${commentIds[0]}") { author { id role } } }`, lacking: ['posts:read'] },
    { relation: 'Comment.post', rest: `/posts/${postId}/comments/${commentIds[0]}?fields=post.title`, gql: `{ comment(id: "${commentIds[0]}") { post { id title } } }`, lacking: ['users:read'] },
    { relation: 'User.items', rest: `/users/${bob.id}?fields=items.name`, gql: `{ user(id: "${bob.id}") { items(first: 20) { id name } } }`, lacking: ['users:read'] },
    { relation: 'User.posts', rest: `/users/${alice.id}?fields=posts.title`, gql: `{ user(id: "${alice.id}") { posts(first: 20) { id title } } }`, lacking: ['users:read'] },
  ];

  it('when each relation is read with every scope and with only the source\'s read scope, then REST and GraphQL agree', async () => {
    const full = await apiKey(carol, ['users:read', 'items:read', 'posts:read']);
    const relations = cases();
    // Every relation the declarations let REST expand is here.
    const declared = Object.values(RESOURCES).flatMap((resource) =>
      [...relationsOf(resource).keys()].map((name) => `${resource.type}.${name}`),
    );
    expect(relations.map((c) => c.relation).sort()).toEqual(declared.sort());
    for (const { relation, rest: path, gql, lacking } of relations) {
      const narrow = await apiKey(carol, lacking);
      for (const [label, key] of [['all scopes', full], [lacking.join(' '), narrow]] as const) {
        const viaRest = await withKey(path, key);
        const viaGraph = await http.graphql(gatewayGraphql, gql, {}, { headers: { 'x-api-key': key } });
        const graphRefused = (viaGraph.body.errors ?? []).some((e: { extensions?: { code?: string } }) => e.extensions?.code === 'FORBIDDEN');
        expect({ relation, label, rest: viaRest.status === 403, graph: graphRefused }).toEqual({
          relation,
          label,
          rest: graphRefused,
          graph: viaRest.status === 403,
        });
        if (label === 'all scopes') expect({ relation, status: viaRest.status }).toEqual({ relation, status: 200 });
      }
    }
  });

  it('when a deactivated user is reached through a relation in GraphQL, then it is null, as REST expands it', async () => {
    const erin = await member('expe');
    const item = await http.post(rest('/items/'), { token: erin.token, json: { name: 'orphan', price: 1 } });
    expect((await http.post(rest(`/users/${erin.id}/deactivate`), { token: admin })).status).toBe(200);
    // `owner { id }` alone is answered from the reference without asking the users subgraph (federation): ask a field.
    const graph = await http.graphql(gatewayGraphql, `{ item(id: "${item.body.id}") { ownerId owner { id username } } }`, {}, { token: alice.token });
    expect(graph.body.errors).toBeUndefined();
    expect(graph.body.data.item).toEqual({ ownerId: String(erin.id), owner: null });
  });
});

describe('the event feed takes fields too', () => {
  it('when GET /events names fields, then each event has only them and its id, the tag differs, Link keeps them, and an unknown or dotted name is 400', async () => {
    // The items created above are recorded as events (asynchronously): wait until the feed has two pages of one.
    await waitFor(
      async () => ((await get('/events?resource_type=item&pageSize=1', admin)).body.pagination?.nextPageToken ? true : undefined),
      45_000,
      'two item events',
    );
    const plain = await get('/events?resource_type=item&pageSize=1', admin);
    const chosen = await get('/events?resource_type=item&pageSize=1&fields=type,resource', admin);
    expect(chosen.status).toBe(200);
    const [event] = chosen.body.data as Array<Record<string, unknown>>;
    expect(Object.keys(event!).sort()).toEqual(['id', 'resource', 'type']);
    expect(event).toEqual({ id: plain.body.data[0].id, type: plain.body.data[0].type, resource: plain.body.data[0].resource });
    expect(chosen.headers.get('etag')).not.toBe(plain.headers.get('etag'));
    expect((await get('/events?resource_type=item&pageSize=1&fields=type,resource', admin, { 'if-none-match': chosen.headers.get('etag')! })).status).toBe(304);
    const next = /<([^>]+)>;\s*rel="next"/.exec(chosen.headers.get('link') ?? '')?.[1];
    expect(next).toContain('fields=type%2Cresource');
    const second = await http.get(`${stack.restUrl}${next}`, { token: admin });
    expect(Object.keys(second.body.data[0]).sort()).toEqual(['id', 'resource', 'type']);
    for (const [fields, named] of [['colour', 'colour'], ['actor.type', 'actor.type']]) {
      const refused = await get(`/events?fields=${fields}`, admin);
      expect(refused.status).toBe(400);
      expect(refused.headers.get('content-type')).toMatch(/json/);
      expect(refused.text).toContain(named);
    }
  });
});
