/**
 * The project's typed client (libs/client: openapi-typescript types + openapi-fetch) against the whole stack: its
 * checked-in types are what openapi-typescript makes of the served /openapi.json today (no drift), and the users,
 * items and posts flows run through it: register, log in with the form body, /users/me, create items, a filtered
 * cursor listing walked page by page, create a post, comment on it, like it.
 *
 * After a change to the document: `UPDATE_CLIENT=1 npx jest apps/e2e/src/typed-client.e2e.ts` rewrites the types.
 */
import { execFile as execFileCallback } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { bearerAuth, createApiClient, formUrlEncoded, type ApiClient, type Schemas } from '@platform/client';
import { http, testStack } from '@platform/testing';
import { unique } from './test/accounts';

const execFile = promisify(execFileCallback);
const stack = testStack();
const GENERATED = join(__dirname, '..', '..', '..', 'libs', 'client', 'src', '__generated__', 'openapi.ts');
// The generator's own CLI (an ES module), run as a child: what a developer runs, on any Node jest runs on.
const GENERATOR = join(dirname(require.resolve('openapi-typescript/package.json')), 'bin', 'cli.js');
// A test switch, like jest's own -u.
const UPDATE = process.env['UPDATE_CLIENT'] === '1';

describe('libs/client types', () => {
  const work = mkdtempSync(join(tmpdir(), 'typed-client-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('when openapi-typescript regenerates the types from the served /openapi.json, then they equal the checked-in ones', async () => {
    const document = await http.get(`${stack.restUrl}/openapi.json`);
    expect(document.status).toBe(200);
    writeFileSync(join(work, 'openapi.json'), document.text);
    await execFile(process.execPath, [GENERATOR, 'openapi.json', '--output', 'openapi.ts'], {
      cwd: work,
      timeout: 120_000,
    });
    if (UPDATE) copyFileSync(join(work, 'openapi.ts'), GENERATED);
    // Drift fails here: regenerate with UPDATE_CLIENT=1 and commit the result with the change to the document.
    expect(readFileSync(GENERATED, 'utf8')).toBe(readFileSync(join(work, 'openapi.ts'), 'utf8'));
  }, 150_000);
});

describe('users, items and posts through the typed client', () => {
  const publicClient = createApiClient(stack.restUrl);
  const name = `tc${unique()}`;
  const password = `typed-${unique()}-1`;
  let userId = 0;
  let client: ApiClient;

  beforeAll(async () => {
    const registered = await publicClient.POST('/users/', {
      body: { username: name, email: `${name}@example.com`, password },
    });
    expect(registered.response.status).toBe(201);
    userId = registered.data!.id;
    // The spec's login: a form body, as OAuth2 clients send it.
    const login = await publicClient.POST('/token', {
      body: { username: name, password },
      bodySerializer: formUrlEncoded,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect({ status: login.response.status, error: login.error }).toEqual({ status: 200, error: undefined });
    expect(login.data!.token_type).toBe('bearer');
    client = createApiClient(stack.restUrl);
    client.use(bearerAuth(login.data!.access_token));
  });

  it('when the logged-in user asks for /users/me, then the typed body is that user', async () => {
    const { data, error, response } = await client.GET('/users/me');
    expect({ status: response.status, error }).toEqual({ status: 200, error: undefined });
    expect(data).toMatchObject({ id: userId, username: name, email: `${name}@example.com`, is_active: true });
  });

  it('when items are created and listed with a filter in pages, then the cursor walk returns exactly the matches in order', async () => {
    const created: number[] = [];
    for (const price of [5, 15, 25, 35, 45]) {
      const { data, response } = await client.POST('/items/', { body: { name: `${name}-${price}`, price } });
      expect(response.status).toBe(201);
      expect(data).toMatchObject({ name: `${name}-${price}`, price, owner_id: userId });
      created.push(data!.id);
    }
    const seen: number[] = [];
    let pageToken: string | undefined;
    for (let page = 0; page < 5; page += 1) {
      const { data, response } = await client.GET('/items/', {
        params: {
          query: {
            owner_id: userId,
            'price[gt]': '10',
            listing: { pageSize: 2, ...(pageToken ? { pageToken } : {}) },
          },
        },
      });
      expect(response.status).toBe(200);
      // The cursor style answers envelope variant B: the response type is the union of the styles, narrowed here.
      if (!data || Array.isArray(data) || !('pagination' in data)) throw new Error(`not a cursor page: ${JSON.stringify(data)}`);
      const body = data;
      expect(body.pagination.totalCount).toBe(4);
      seen.push(...body.data.map((item) => item.id));
      if (!body.pagination.nextPageToken) break;
      pageToken = body.pagination.nextPageToken;
    }
    expect(seen).toEqual(created.slice(1));
  });

  it('when a post is created, commented and liked, then each answer is typed and the like counts', async () => {
    const post = await client.POST('/posts', { body: { title: `${name} writes`, body: 'Typed all the way.' } });
    expect(post.response.status).toBe(201);
    const postId = post.data!.id;
    expect(post.data).toMatchObject({ title: `${name} writes`, author_id: userId });

    const comment = await client.POST('/posts/{id}/comments', {
      params: { path: { id: postId } },
      body: { body: 'First!' },
    });
    expect(comment.response.status).toBe(201);
    expect(comment.data).toMatchObject({ body: 'First!', author_id: userId });

    const like = await client.POST('/posts/{id}/like', { params: { path: { id: postId } } });
    expect(like.response.status).toBe(200);
    expect(like.data!.like_count).toBe(1);

    const comments = await client.GET('/posts/{id}/comments', { params: { path: { id: postId } } });
    expect(comments.response.status).toBe(200);
    expect(JSON.stringify(comments.data)).toContain('First!');
  });

  it('when a post is read with expand and fields, then the answer is typed as the selected post with its expanded records', async () => {
    const post = await client.POST('/posts', { body: { title: `${name} expands`, body: 'With its author.' } });
    const { data, response } = await client.GET('/posts/{id}', {
      params: { path: { id: post.data!.id }, query: { expand: ['author'], fields: ['title', 'author.username'] } },
    });
    expect(response.status).toBe(200);
    // The plain Post is a PostSelected too: a client that asked for a selection reads it as one.
    const selected: Schemas['PostSelected'] = data!;
    const author: Schemas['UserSelected'] | null | undefined = selected.author;
    expect(selected).toEqual({ id: post.data!.id, title: `${name} expands`, author: { id: userId, username: name } });
    expect(author?.username).toBe(name);
  });

  it('when the API refuses a request, then the typed error is the problem details asked for', async () => {
    const { error, response } = await client.GET('/items/{item_id}', {
      params: { path: { item_id: 2_147_483_000 } },
      headers: { accept: 'application/problem+json' },
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND', type: 'https://api-platform.example/problems/not-found' });
  });
});
