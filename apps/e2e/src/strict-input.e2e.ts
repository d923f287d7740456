/**
 * Strict input over the real stack (issue 14, deliverable 5; docs/interface.md#decision-log, 2026-11-23): canonical ids
 * only, page tokens bound to their collection, unknown query parameters refused whatever their name, usernames and
 * e-mails unique case-insensitively (also under a race), and no NUL or unpaired surrogate in stored text.
 */
import { http } from '@platform/testing';
import { gatewayGraphql, member, rest, twoMembersAndAdmin, unique, type Member } from './test/resources-support';

// Registrations hash passwords (argon2id) on a shared 2-core machine.
jest.setTimeout(60_000);

let alice: Member;
let bob: Member;
let admin: string;
let itemId: number;
let postId: number;
let otherPostId: number;

beforeAll(async () => {
  ({ alice, bob, admin } = await twoMembersAndAdmin('strict', 'strictb'));
  const items = [];
  for (let i = 0; i < 2; i += 1) {
    items.push(await http.post(rest('/items/'), { token: alice.token, json: { name: `strict ${i}`, price: 1 } }));
  }
  itemId = items[0]!.body.id as number;
  const posts = [];
  for (let i = 0; i < 2; i += 1) {
    posts.push(await http.post(rest('/posts'), { token: alice.token, json: { title: `strict ${i}`, body: 'b' } }));
  }
  postId = posts[0]!.body.id as number;
  otherPostId = posts[1]!.body.id as number;
  for (const id of [postId, otherPostId]) {
    for (let i = 0; i < 2; i += 1) {
      await http.post(rest(`/posts/${id}/comments`), { token: bob.token, json: { body: `c${i}` } });
    }
  }
});

const MALFORMED_IDS = ['0x10', '%201', '1%0a', '1e3', '01', '0', '1.0', '-1', '1000000000000000'];

describe('strict input: ids in paths', () => {
  it('when ids are canonical, then the records are served as before', async () => {
    expect((await http.get(rest(`/items/${itemId}`), { token: alice.token })).status).toBe(200);
    expect((await http.get(rest(`/users/${alice.id}`), { token: alice.token })).status).toBe(200);
    expect((await http.get(rest(`/posts/${postId}`), { token: alice.token })).status).toBe(200);
  });

  it.each(MALFORMED_IDS)('when an item id is %s, then 400 names item_id (GET and DELETE)', async (raw) => {
    for (const method of ['get', 'delete'] as const) {
      const response = await http[method](rest(`/items/${raw}`), { token: admin });
      expect({ raw, method, status: response.status }).toEqual({ raw, method, status: 400 });
      expect(response.body.detail).toContain('item_id');
    }
  });

  it.each(MALFORMED_IDS)('when a user id is %s, then 422 names user_id', async (raw) => {
    const response = await http.get(rest(`/users/${raw}`), { token: admin });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain('user_id');
  });

  it.each(['0x10', '01', '1e3', '%201'])('when an API key id is %s, then DELETE /api-keys/{id} is 422 naming key_id', async (raw) => {
    const response = await http.delete(rest(`/api-keys/${raw}`), { token: alice.token });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain('key_id');
  });

  it.each(['0x10', '01', '1e3', '1%0a'])(
    'when a post, comment or article id is %s, then the validation status (422) names the parameter (CONTRACT: 400 is for item_id only)',
    async (raw) => {
      const cases: Array<[string, string]> = [
        [`/posts/${raw}`, 'id'],
        [`/posts/${raw}/comments`, 'id'],
        [`/posts/${postId}/comments/${raw}`, 'comment_id'],
        [`/users/${raw}/articles`, 'id'],
        [`/users/${alice.id}/articles/${raw}/comments`, 'article_id'],
      ];
      for (const [path, field] of cases) {
        const response = await http.get(rest(path), { token: alice.token });
        expect({ path, status: response.status }).toEqual({ path, status: 422 });
        expect(response.body.detail).toContain(field);
      }
    },
  );

  it('when a GraphQL ID argument is not canonical, then the error is a client error with extensions.code', async () => {
    for (const [query, id] of [
      ['query ($id: ID!) { item(id: $id) { id } }', '1000000000000000'],
      ['query ($id: ID!) { user(id: $id) { id } }', '0x10'],
      ['query ($id: ID!) { post(id: $id) { id } }', '01'],
      ['mutation ($id: ID!) { revokeApiKey(id: $id) }', '1000000000000000'],
    ] as const) {
      const response = await http.graphql(gatewayGraphql, query, { id }, { token: admin });
      expect({ query, code: response.body.errors?.[0]?.extensions?.code }).toEqual({ query, code: 'BAD_USER_INPUT' });
    }
  });
});

describe('strict input: listing parameters', () => {
  const firstPageToken = async (path: string): Promise<string> => {
    const separator = path.includes('?') ? '&' : '?';
    const page = await http.get(rest(`${path}${separator}pageSize=1`), { token: admin });
    expect(page.status).toBe(200);
    const token = page.body.pagination.nextPageToken as string | null;
    if (!token) throw new Error(`no next page on ${path}`);
    return token;
  };

  it('when a page token is used on its own listing, then the next page is served', async () => {
    const token = await firstPageToken('/items/');
    const next = await http.get(rest(`/items/?pageSize=1&pageToken=${encodeURIComponent(token)}`), { token: admin });
    expect(next.status).toBe(200);
  });

  it('when a page token of /items/ is used on another collection, then 422 names pageToken', async () => {
    const token = encodeURIComponent(await firstPageToken('/items/'));
    for (const path of ['/users/', '/posts', `/posts/${postId}/comments`, `/users/${alice.id}/articles`]) {
      for (const name of ['pageToken', 'cursor']) {
        const response = await http.get(rest(`${path}?${name}=${token}`), { token: admin });
        expect({ path, name, status: response.status }).toEqual({ path, name, status: 422 });
        expect(response.body.detail).toContain(name);
      }
    }
  });

  it("when a page token of one post's comments is used on another post's comments, then 422 names pageToken", async () => {
    const token = encodeURIComponent(await firstPageToken(`/posts/${postId}/comments`));
    const own = await http.get(rest(`/posts/${postId}/comments?pageToken=${token}`), { token: admin });
    expect(own.status).toBe(200);
    const other = await http.get(rest(`/posts/${otherPostId}/comments?pageToken=${token}`), { token: admin });
    expect(other.status).toBe(422);
    expect(other.body.detail).toContain('pageToken');
  });

  it.each(['/items/', '/users/', '/posts'])('when %s gets an empty pageToken or cursor, then 422 names it', async (path) => {
    for (const query of ['pageSize=1&pageToken=', 'pageToken=', 'cursor=']) {
      const response = await http.get(rest(`${path}?${query}`), { token: admin });
      expect({ query, status: response.status }).toEqual({ query, status: 422 });
      expect(response.body.detail).toMatch(/pageToken|cursor/);
    }
  });

  it.each(['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'foo'])(
    'when a listing gets the unknown parameter %s, then 422 names it',
    async (name) => {
      for (const path of ['/items/', '/users/', '/posts', `/posts/${postId}/comments`, `/users/${alice.id}/articles`]) {
        const response = await http.get(rest(`${path}?${name}=1`), { token: admin });
        expect({ path, status: response.status }).toEqual({ path, status: 422 });
        expect(response.body.detail).toContain(name);
      }
    },
  );
});

describe('strict input: record reads take only their declared parameters', () => {
  const UNDECLARED = ['fileds=name', 'expand[]=owner', 'expand[x]=y', 'fields[name]=1', 'fields[a][b]=c', '__proto__=1'];
  const readPaths = async () => {
    const comments = await http.get(rest(`/posts/${postId}/comments?limit=1`), { token: admin });
    return [
      `/items/${itemId}`,
      '/users/me',
      `/users/${alice.id}`,
      `/posts/${postId}`,
      `/posts/${postId}/comments/${comments.body[0].id}`,
      '/api-keys',
      '/api-keys/1',
      '/events/evt_00000000000000000000000000',
      '/webhooks',
      '/webhooks/1',
    ];
  };

  it('when a record read names only its declared parameters, then it is served', async () => {
    const item = await http.get(rest(`/items/${itemId}?fields=name&expand=owner`), { token: alice.token });
    expect(item.status).toBe(200);
    expect(Object.keys(item.body).sort()).toEqual(['id', 'name', 'owner']);
    expect((await http.get(rest(`/users/${alice.id}?include_inactive=true`), { token: admin })).status).toBe(200);
  });

  it.each(UNDECLARED)('when a record read gets %s, then 422 names the parameter (as a listing does)', async (query) => {
    const name = decodeURIComponent(query.split('=')[0]!);
    for (const path of [...(await readPaths()), '/items/']) {
      const response = await http.get(rest(`${path}?${query}`), { token: alice.token });
      expect({ path, status: response.status }).toEqual({ path, status: 422 });
      expect(response.body.detail).toContain(name);
    }
  });
});

describe('strict input: JSON depth', () => {
  it('when a REST body nests 5,000 levels, then 400 names the member that nests too deep and nothing is created', async () => {
    // Written out: JSON.stringify itself overflows the stack at 5,000 levels.
    const deep = `${'{"name":'.repeat(5_000)}"x"${'}'.repeat(5_000)}`;
    const name = `deep ${unique()}`;
    const response = await http.post(rest('/items/'), {
      token: alice.token,
      headers: { 'content-type': 'application/json' },
      body: `{"name":${JSON.stringify(name)},"price":1,"extra":${deep}}`,
    });
    expect(response.status).toBe(400);
    expect(response.body.detail).toContain('`extra` nests deeper than 32 levels');
    const listed = await http.get(rest(`/items/?name=${encodeURIComponent(name)}`), { token: alice.token });
    expect(listed.body).toEqual([]);
  });
});

/** Spelling number `n` of a name: bit k of n upper-cases every letter at a position p with p % 4 === k. */
const caseVariant = (name: string, n: number): string =>
  [...name].map((c, p) => ((n >> p % 4) & 1 ? c.toUpperCase() : c)).join('');

describe('strict input: usernames and e-mails unique case-insensitively', () => {
  const register = (username: string, email: string) =>
    http.post(rest('/users/'), { json: { username, email, password: `pw-${unique()}-1` } });

  it('when a username differs from a registered one only by case, then 409 names the username', async () => {
    const name = `Case${unique()}`;
    expect((await register(name, `${name}@example.com`)).status).toBe(201);
    for (const variant of [name.toLowerCase(), name.toUpperCase()]) {
      const response = await register(variant, `${unique()}@example.com`);
      expect({ variant, status: response.status }).toEqual({ variant, status: 409 });
      expect(response.body.detail).toMatch(/username/);
    }
  });

  it('when an e-mail differs from a registered one only by case, then 409 names the e-mail', async () => {
    const local = `Mail${unique()}`;
    const first = await register(`m${unique()}`, `${local}@Example.COM`);
    expect(first.status).toBe(201);
    // Stored as given, the domain lower-cased.
    expect(first.body.email).toBe(`${local}@example.com`);
    for (const email of [`${local.toLowerCase()}@example.com`, `${local.toUpperCase()}@EXAMPLE.com`]) {
      const response = await register(`m${unique()}`, email);
      expect({ email, status: response.status }).toEqual({ email, status: 409 });
      expect(response.body.detail).toMatch(/email/);
    }
  });

  it('when 10 case variants of one new username register at once, then exactly one is 201 and nine are 409', async () => {
    const base = `race${unique()}`;
    const variants = Array.from({ length: 10 }, (_, i) => caseVariant(base, i));
    expect(new Set(variants).size).toBe(10);
    const responses = await Promise.all(variants.map((name) => register(name, `${name}-${unique()}@example.com`)));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(409)]);
    const listed = await http.get(rest(`/users/?limit=1000&username[in]=${variants.join(',')}`), { token: admin });
    expect(listed.body).toHaveLength(1);
  });

  it('when 10 case variants of one new e-mail register at once, then exactly one is 201 and nine are 409', async () => {
    const local = `racemail${unique()}`;
    const emails = Array.from({ length: 10 }, (_, i) => `${caseVariant(local, i)}@Example.com`);
    expect(new Set(emails).size).toBe(10);
    const responses = await Promise.all(emails.map((email) => register(`e${unique()}`, email)));
    expect(responses.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
  });

  it('when an e-mail is changed (PATCH or PUT) to a case variant of another user\'s, then 409; to its own in another case, 200', async () => {
    const carol = await member('strictc');
    const carolProfile = await http.get(rest(`/users/${carol.id}`), { token: carol.token });
    const bobProfile = await http.get(rest(`/users/${bob.id}`), { token: bob.token });
    const bobsVariant = (bobProfile.body.email as string).toUpperCase();
    const patched = await http.patch(rest(`/users/${carol.id}`), { token: carol.token, json: { email: bobsVariant } });
    expect(patched.status).toBe(409);
    expect(patched.body.detail).toMatch(/email/);
    const put = await http.put(rest(`/users/${carol.id}`), { token: carol.token, json: { email: bobsVariant } });
    expect(put.status).toBe(409);
    const ownVariant = (carolProfile.body.email as string).toUpperCase();
    const own = await http.patch(rest(`/users/${carol.id}`), { token: carol.token, json: { email: ownVariant } });
    expect(own.status).toBe(200);
    expect(own.body.email).toBe(`${carol.username.toUpperCase()}@example.com`);
  });

  it('when a user logs in with the username in another case, then the login succeeds as the registered name', async () => {
    const name = `Login${unique()}`;
    const password = `pw-${unique()}-1`;
    expect((await http.post(rest('/users/'), { json: { username: name, email: `${name}@example.com`, password } })).status).toBe(201);
    const response = await http.post(rest('/token'), { form: { username: name.toUpperCase(), password } });
    expect(response.status).toBe(200);
    const claims = JSON.parse(Buffer.from(String(response.body.access_token).split('.')[1]!, 'base64url').toString('utf8'));
    expect(claims.sub).toBe(name);
    const wrong = await http.post(rest('/token'), { form: { username: name.toLowerCase(), password: 'wrong-password-1' } });
    expect(wrong.status).toBe(401);
  });

  it('when GET /users/ filters by username or email, then exact stored values still match', async () => {
    const name = `Filter${unique()}`;
    const created = await register(name, `${name}@Example.com`);
    expect(created.status).toBe(201);
    const byName = await http.get(rest(`/users/?username=${name}`), { token: admin });
    expect(byName.body.map((u: { id: number }) => u.id)).toEqual([created.body.id]);
    const byEmail = await http.get(rest(`/users/?email=${encodeURIComponent(`${name}@example.com`)}`), { token: admin });
    expect(byEmail.body.map((u: { id: number }) => u.id)).toEqual([created.body.id]);
  });
});

describe('strict input: NUL and unpaired surrogates', () => {
  it.each([
    ['POST /items/ name', () => http.post(rest('/items/'), { token: alice.token, json: { name: 'lamp\u0000', price: 1 } }), 'name'],
    ['POST /items/ description', () => http.post(rest('/items/'), { token: alice.token, json: { name: 'lamp', description: 'x\ud800', price: 1 } }), 'description'],
    ['PATCH /items/{id} name', () => http.patch(rest(`/items/${itemId}`), { token: alice.token, json: { name: '\udc00lamp' } }), 'name'],
    ['POST /posts title', () => http.post(rest('/posts'), { token: alice.token, json: { title: 'a\u0000', body: 'b' } }), 'title'],
    ['POST /posts body', () => http.post(rest('/posts'), { token: alice.token, json: { title: 'a', body: 'b\ud83d' } }), 'body'],
    ['POST comment body', () => http.post(rest(`/posts/${postId}/comments`), { token: bob.token, json: { body: 'c\u0000' } }), 'body'],
    ['PATCH /users/{id} full_name', () => http.patch(rest(`/users/${alice.id}`), { token: alice.token, json: { full_name: 'A\u0000' } }), 'full_name'],
    ['POST /api-keys name', () => http.post(rest('/api-keys'), { token: alice.token, json: { name: 'job\ud800', scopes: ['items:read'] } }), 'name'],
    ['POST /users/ username', () => http.post(rest('/users/'), { json: { username: `n${unique()}\u0000`, email: `${unique()}@example.com`, password: 'password-1' } }), 'username'],
    ['GET /items/ filter', () => http.get(rest('/items/?name=a%00b'), { token: alice.token }), 'name'],
  ])('when %s holds NUL or a lone surrogate, then 422 names the field', async (_label, send, field) => {
    const response = await send();
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain(field);
  });

  it('when an item name is ordinary non-ASCII text (emoji included), then it is stored and returned unchanged', async () => {
    const name = 'Lampe 日本 😀';
    const created = await http.post(rest('/items/'), { token: alice.token, json: { name, price: 2 } });
    expect(created.status).toBe(201);
    expect((await http.get(rest(`/items/${created.body.id}`), { token: alice.token })).body.name).toBe(name);
  });

  it('when GraphQL createItem gets a NUL in the name, then BAD_USER_INPUT names it', async () => {
    const response = await http.graphql(
      gatewayGraphql,
      'mutation ($input: CreateItemInput!) { createItem(input: $input) { id } }',
      { input: { name: 'x\u0000', price: 1 } },
      { token: alice.token },
    );
    expect(response.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors[0].message).toContain('name');
  });
});
