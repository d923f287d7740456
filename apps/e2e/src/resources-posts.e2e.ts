/**
 * Posts, comments and likes over the real stack: CRUD with bounds, authorship (403), the double like, unlike,
 * the cascade on post deletion, nested comment routes, a user's articles and their comments, OpenAPI.
 */
import { MongoClient } from 'mongodb';
import { http } from '@platform/testing';
import { member, rest, stack, twoMembersAndAdmin, type Member } from './test/resources-support';

// Registrations hash passwords (argon2id) on a shared 2-core machine: allow more than jest's 5 s default.
jest.setTimeout(60_000);

let alice: Member;
let bob: Member;
let admin: string;
const mongo = new MongoClient(stack.mongoUrl);

afterAll(() => mongo.close());

beforeAll(async () => {
  ({ alice, bob, admin } = await twoMembersAndAdmin('posta', 'postb'));
});

const createPost = (token: string, json: unknown = { title: 'Hello', body: 'First post.' }) =>
  http.post(rest('/posts'), { token, json });
const comment = (token: string, postId: number, body = 'Nice!') =>
  http.post(rest(`/posts/${postId}/comments`), { token, json: { body } });

describe('posts', () => {
  it('when a member writes a post, then 201 returns it with the author, zero likes and ISO timestamps', async () => {
    const created = await createPost(alice.token);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      author_id: alice.id,
      title: 'Hello',
      body: 'First post.',
      like_count: 0,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: created.body.created_at,
    });
    expect((await http.get(rest(`/posts/${created.body.id}`), { token: bob.token })).body).toEqual(
      created.body,
    );
  });

  it.each([
    ['an empty title', { title: '', body: 'b' }, 'title'],
    ['a 201-character title', { title: 't'.repeat(201), body: 'b' }, 'title'],
    ['a 20,001-character body', { title: 't', body: 'b'.repeat(20_001) }, 'body'],
    ['no body', { title: 't' }, 'body'],
    ['an author_id', { title: 't', body: 'b', author_id: 1 }, 'author_id'],
  ])('when the post has %s, then 422 names the field', async (_label, json, field) => {
    const response = await createPost(alice.token, json);
    expect(response.status).toBe(422);
    expect(response.text).toContain(field);
  });

  it('when the bounds are met exactly, then the post and the comment are created', async () => {
    const post = await createPost(alice.token, { title: 't'.repeat(200), body: 'b'.repeat(20_000) });
    expect(post.status).toBe(201);
    expect((await comment(bob.token, post.body.id, 'c'.repeat(5000))).status).toBe(201);
    const tooLong = await comment(bob.token, post.body.id, 'c'.repeat(5001));
    expect(tooLong.status).toBe(422);
    expect(tooLong.text).toContain('body');
  });

  it('when the author replaces and modifies a post, then PUT needs both fields and PATCH changes only what it names', async () => {
    const created = await createPost(alice.token);
    const patched = await http.patch(rest(`/posts/${created.body.id}`), {
      token: alice.token,
      json: { title: 'Better' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ title: 'Better', body: 'First post.' });
    expect(patched.body.updated_at >= created.body.updated_at).toBe(true);
    const replaced = await http.put(rest(`/posts/${created.body.id}`), {
      token: alice.token,
      json: { title: 'New', body: 'All new.' },
    });
    expect(replaced.body).toMatchObject({
      id: created.body.id,
      title: 'New',
      body: 'All new.',
      author_id: alice.id,
    });
    expect(
      (await http.put(rest(`/posts/${created.body.id}`), { token: alice.token, json: { title: 'only' } }))
        .status,
    ).toBe(422);
  });

  it("when B modifies or deletes A's post or comment, then 403; an admin may", async () => {
    const post = await createPost(alice.token);
    const id = post.body.id as number;
    expect((await http.patch(rest(`/posts/${id}`), { token: bob.token, json: { title: 'x' } })).status).toBe(
      403,
    );
    expect(
      (await http.put(rest(`/posts/${id}`), { token: bob.token, json: { title: 'x', body: 'y' } })).status,
    ).toBe(403);
    expect((await http.delete(rest(`/posts/${id}`), { token: bob.token })).status).toBe(403);
    const aliceComment = await comment(alice.token, id);
    const commentPath = rest(`/posts/${id}/comments/${aliceComment.body.id}`);
    expect((await http.patch(commentPath, { token: bob.token, json: { body: 'x' } })).status).toBe(403);
    expect((await http.delete(commentPath, { token: bob.token })).status).toBe(403);
    expect((await http.get(commentPath, { token: bob.token })).body).toEqual(aliceComment.body);
    expect((await http.patch(commentPath, { token: admin, json: { body: 'moderated' } })).body.body).toBe(
      'moderated',
    );
    expect((await http.delete(rest(`/posts/${id}`), { token: admin })).status).toBe(204);
  });

  it('when posts and comments are absent or ids invalid, then 404 and 400', async () => {
    expect((await http.get(rest('/posts/987654321'), { token: alice.token })).status).toBe(404);
    // CONTRACT (2026-11-23): an invalid id is 400 for item_id only, the validation status elsewhere.
    expect((await http.get(rest('/posts/abc'), { token: alice.token })).status).toBe(422);
    expect((await http.delete(rest('/posts/987654321'), { token: alice.token })).status).toBe(404);
    expect((await comment(alice.token, 987654321)).status).toBe(404);
    expect((await http.get(rest('/posts/987654321/comments'), { token: alice.token })).status).toBe(404);
    expect((await http.post(rest('/posts/987654321/like'), { token: alice.token })).status).toBe(404);
    const post = await createPost(alice.token);
    const other = await createPost(alice.token);
    const onOther = await comment(bob.token, other.body.id);
    // A comment is addressed under its own post only.
    expect(
      (await http.get(rest(`/posts/${post.body.id}/comments/${onOther.body.id}`), { token: bob.token }))
        .status,
    ).toBe(404);
    expect(
      (await http.delete(rest(`/posts/${post.body.id}/comments/${onOther.body.id}`), { token: bob.token }))
        .status,
    ).toBe(404);
  });

  it('when a user likes a post twice, then it counts once; unliking removes it; a second unlike changes nothing', async () => {
    const post = await createPost(alice.token);
    const path = rest(`/posts/${post.body.id}/like`);
    const first = await http.post(path, { token: bob.token });
    expect(first.status).toBe(200);
    expect(first.body.like_count).toBe(1);
    expect((await http.post(path, { token: bob.token })).body.like_count).toBe(1);
    expect((await http.post(path, { token: alice.token })).body.like_count).toBe(2);
    const unliked = await http.delete(path, { token: bob.token });
    expect(unliked.status).toBe(204);
    expect(unliked.text).toBe('');
    expect((await http.delete(path, { token: bob.token })).status).toBe(204);
    expect((await http.get(rest(`/posts/${post.body.id}`), { token: bob.token })).body.like_count).toBe(1);
  });

  it('when many likes by the same user race, then the count is still one', async () => {
    const post = await createPost(alice.token);
    const path = rest(`/posts/${post.body.id}/like`);
    const results = await Promise.all(Array.from({ length: 8 }, () => http.post(path, { token: bob.token })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect((await http.get(rest(`/posts/${post.body.id}`), { token: bob.token })).body.like_count).toBe(1);
  });

  it('when many posts and comments are created at once, then every one is created with its own id', async () => {
    const posts = await Promise.all(
      Array.from({ length: 6 }, (_, n) => createPost(bob.token, { title: `burst ${n}`, body: 'b' })),
    );
    expect(posts.map((r) => r.status)).toEqual(Array.from({ length: 6 }, () => 201));
    expect(new Set(posts.map((r) => r.body.id)).size).toBe(6);
    const comments = await Promise.all(
      Array.from({ length: 6 }, (_, n) => comment(alice.token, posts[0]!.body.id, `c${n}`)),
    );
    expect(comments.map((r) => r.status)).toEqual(Array.from({ length: 6 }, () => 201));
    expect(new Set(comments.map((r) => r.body.id)).size).toBe(6);
  });

  it('when a post is deleted, then its comments and likes go with it', async () => {
    const post = await createPost(alice.token);
    const id = post.body.id as number;
    const c1 = await comment(bob.token, id, 'one');
    await comment(alice.token, id, 'two');
    await http.post(rest(`/posts/${id}/like`), { token: bob.token });
    expect((await http.get(rest(`/posts/${id}/comments`), { token: bob.token })).body).toHaveLength(2);
    const db = mongo.db('api_posts');
    expect(await db.collection('likes').countDocuments({ postId: id })).toBe(1);
    const deleted = await http.delete(rest(`/posts/${id}`), { token: alice.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await http.get(rest(`/posts/${id}`), { token: bob.token })).status).toBe(404);
    expect((await http.get(rest(`/posts/${id}/comments`), { token: bob.token })).status).toBe(404);
    expect((await http.get(rest(`/posts/${id}/comments/${c1.body.id}`), { token: bob.token })).status).toBe(
      404,
    );
    expect(await db.collection('comments').countDocuments({ postId: id })).toBe(0);
    expect(await db.collection('likes').countDocuments({ postId: id })).toBe(0);
  });

  it('when comments are written, listed, edited and deleted, then each route answers as documented', async () => {
    const post = await createPost(alice.token);
    const id = post.body.id as number;
    const created = await comment(bob.token, id, 'first');
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      post_id: id,
      author_id: bob.id,
      body: 'first',
      created_at: expect.any(String),
    });
    await comment(alice.token, id, 'second');
    const list = await http.get(rest(`/posts/${id}/comments`), { token: alice.token });
    expect(list.body.map((c: { body: string }) => c.body)).toEqual(['first', 'second']);
    const mine = await http.get(rest(`/posts/${id}/comments?author_id=${bob.id}`), { token: alice.token });
    expect(mine.body.map((c: { body: string }) => c.body)).toEqual(['first']);
    const edited = await http.patch(rest(`/posts/${id}/comments/${created.body.id}`), {
      token: bob.token,
      json: { body: 'edited' },
    });
    expect(edited.body).toEqual({ ...created.body, body: 'edited' });
    expect(
      (await http.delete(rest(`/posts/${id}/comments/${created.body.id}`), { token: bob.token })).status,
    ).toBe(204);
    expect(
      (await http.get(rest(`/posts/${id}/comments/${created.body.id}`), { token: bob.token })).status,
    ).toBe(404);
    const page = await http.get(rest(`/posts/${id}/comments?page=1&size=10`), { token: alice.token });
    expect(page.body).toEqual({
      items: [expect.objectContaining({ body: 'second' })],
      total: 1,
      page: 1,
      size: 10,
    });
  });

  it("when a user's articles are listed, then only that user's posts appear, and an article's comments need the right author", async () => {
    const writer = await member('postw');
    const p1 = await createPost(writer.token, { title: 'A1', body: 'x' });
    await createPost(writer.token, { title: 'A2', body: 'y' });
    await createPost(alice.token, { title: 'not theirs', body: 'z' });
    const articles = await http.get(rest(`/users/${writer.id}/articles`), { token: bob.token });
    expect(articles.status).toBe(200);
    expect(articles.body.map((p: { title: string }) => p.title)).toEqual(['A1', 'A2']);
    const filtered = await http.get(rest(`/users/${writer.id}/articles?title=A2&pageSize=5`), {
      token: bob.token,
    });
    expect(filtered.body).toEqual({
      data: [expect.objectContaining({ title: 'A2' })],
      pagination: { nextPageToken: null, totalCount: 1, pageSize: 5 },
    });
    expect(
      (await http.get(rest(`/users/${writer.id}/articles?author_id=${alice.id}`), { token: bob.token }))
        .status,
    ).toBe(422);
    expect((await http.get(rest('/users/987654321/articles'), { token: bob.token })).status).toBe(404);

    await comment(bob.token, p1.body.id, 'on A1');
    const comments = await http.get(rest(`/users/${writer.id}/articles/${p1.body.id}/comments`), {
      token: alice.token,
    });
    expect(comments.status).toBe(200);
    expect(comments.body).toEqual([
      expect.objectContaining({ body: 'on A1', author_id: bob.id, post_id: p1.body.id }),
    ]);
    expect(
      (await http.get(rest(`/users/${alice.id}/articles/${p1.body.id}/comments`), { token: alice.token }))
        .status,
    ).toBe(404);
    expect(
      (await http.get(rest(`/users/${writer.id}/articles/987654321/comments`), { token: alice.token }))
        .status,
    ).toBe(404);
  });

  it('when posts are listed, then the default is an array and author_id/title filters apply', async () => {
    const writer = await member('postl');
    await createPost(writer.token, { title: 'b', body: 'x' });
    await createPost(writer.token, { title: 'a', body: 'x' });
    const list = await http.get(rest(`/posts?author_id=${writer.id}&sort=title`), { token: alice.token });
    expect(list.status).toBe(200);
    expect(list.body.map((p: { title: string }) => p.title)).toEqual(['a', 'b']);
    expect((await http.get(rest('/posts?author_id=abc'), { token: alice.token })).status).toBe(422);
  });

  it('when an API key or a read-only token is used, then reads pass and writes are refused', async () => {
    const post = await createPost(alice.token);
    const headers = { 'x-api-key': 'test-bootstrap-api-key-0123456789' };
    expect((await http.get(rest(`/posts/${post.body.id}`), { headers })).status).toBe(200);
    expect((await http.get(rest(`/posts/${post.body.id}/comments`), { headers })).status).toBe(200);
    expect((await http.post(rest(`/posts/${post.body.id}/like`), { headers })).status).toBe(401);
    const reader = await member('postr', 'posts:read');
    const refused = await http.post(rest(`/posts/${post.body.id}/like`), { token: reader.token });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('posts:write');
    expect((await http.get(rest('/posts'))).status).toBe(401);
  });

  it('when the OpenAPI document is read, then every posts, comments and articles operation is there with schemas and security', async () => {
    const doc = (await http.get(rest('/openapi.json'))).body;
    const operations: Array<[string, string]> = [
      ['/posts', 'get'],
      ['/posts', 'post'],
      ['/posts/{id}', 'get'],
      ['/posts/{id}', 'put'],
      ['/posts/{id}', 'patch'],
      ['/posts/{id}', 'delete'],
      ['/posts/{id}/like', 'post'],
      ['/posts/{id}/like', 'delete'],
      ['/posts/{id}/comments', 'get'],
      ['/posts/{id}/comments', 'post'],
      ['/posts/{id}/comments/{comment_id}', 'get'],
      ['/posts/{id}/comments/{comment_id}', 'patch'],
      ['/posts/{id}/comments/{comment_id}', 'delete'],
      ['/users/{id}/articles', 'get'],
      ['/users/{id}/articles/{article_id}/comments', 'get'],
    ];
    for (const [path, method] of operations) {
      const operation = doc.paths[path]?.[method];
      expect({
        path,
        method,
        ok: Boolean(operation?.security?.length && operation['x-required-scope']),
      }).toEqual({ path, method, ok: true });
    }
    expect(doc.components.schemas.Post.properties.like_count).toBeDefined();
    expect(doc.components.schemas.PostCreate.properties.title.maxLength).toBe(200);
    expect(doc.components.schemas.CommentCreate.properties.body.maxLength).toBe(5000);
  });
});
