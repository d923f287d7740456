/**
 * A create answers where the new record lives and which version it is (RFC 9110 §15.3.2 and §8.8): `201` with
 * `Location` (the record's path, under the request's version prefix) and the strong `ETag` a GET of that location
 * answers, so a client can follow the location and write with `If-Match` without reading first. An account action
 * (activate, deactivate, reset-password) moves the account's version and answers the new tag too. ADR 0012.
 */
import { http, type HttpResponse } from '@platform/testing';
import { adminToken, login, member, rest, unique, type Member } from './test/resources-support';

jest.setTimeout(120_000);

let alice: Member;

beforeAll(async () => {
  alice = await member('created');
});

/** The created record's location and tag, checked against a GET of the location with `token`. */
async function followCreated(created: HttpResponse, token: string, expectedPath: RegExp) {
  expect(created.status).toBe(201);
  const location = created.headers.get('location');
  expect(location).toMatch(expectedPath);
  expect(location).toMatch(new RegExp(`/${created.body.id}$`));
  const read = await http.get(rest(location!), { token });
  expect(read.status).toBe(200);
  expect(read.body.id).toBe(created.body.id);
  return { location: location!, read };
}

/** Each record type: how to create one as `alice` (its URL), and a PATCH body for it. */
const records: Array<[string, () => Promise<HttpResponse>, RegExp, Record<string, unknown>]> = [
  [
    'an item',
    () => http.post(rest('/items/'), { token: alice.token, json: { name: `loc-${unique()}`, price: 2 } }),
    /^\/items\/\d+$/,
    { price: 3 },
  ],
  [
    'a post',
    () => http.post(rest('/posts'), { token: alice.token, json: { title: `Loc ${unique()}`, body: 'b' } }),
    /^\/posts\/\d+$/,
    { title: 'Edited' },
  ],
  [
    'a comment',
    async () => {
      const post = await http.post(rest('/posts'), {
        token: alice.token,
        json: { title: `Loc ${unique()}`, body: 'b' },
      });
      return http.post(rest(`/posts/${post.body.id}/comments`), {
        token: alice.token,
        json: { body: 'first' },
      });
    },
    /^\/posts\/\d+\/comments\/\d+$/,
    { body: 'edited' },
  ],
];

describe('201 Created', () => {
  it.each(records)(
    'when %s is created, then Location names it and its ETag is the one a GET answers, good for If-Match at once',
    async (_what, create, path, change) => {
      const created = await create();
      const { location, read } = await followCreated(created, alice.token, path);
      expect(read.body).toEqual(created.body);
      const etag = created.headers.get('etag');
      expect(etag).toMatch(/^"\d+\.(l\d+\.)?r2"$/);
      expect(read.headers.get('etag')).toBe(etag);
      const written = await http.patch(rest(location), {
        token: alice.token,
        json: change,
        headers: { 'if-match': etag! },
      });
      expect(written.status).toBe(200);
      const stale = await http.patch(rest(location), {
        token: alice.token,
        json: change,
        headers: { 'if-match': etag! },
      });
      expect(stale.status).toBe(412);
    },
  );

  it('when a user registers, then Location is the account and its ETag the one the account reads with', async () => {
    const username = `created${unique()}`;
    const password = `pw-${unique()}-9`;
    const created = await http.post(rest('/users/'), {
      json: { username, email: `${username}@example.com`, password },
    });
    const token = await login(username, password);
    const { location, read } = await followCreated(created, token, /^\/users\/\d+$/);
    expect(read.body).toEqual(created.body);
    expect(created.headers.get('etag')).toMatch(/^"\d+\.r2"$/);
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    const written = await http.patch(rest(location), {
      token,
      json: { full_name: 'Created Once' },
      headers: { 'if-match': created.headers.get('etag')! },
    });
    expect(written.status).toBe(200);
  });

  it('when an API key is created, then Location is the key (read without the secret), and the answer is never cached', async () => {
    const created = await http.post(rest('/api-keys'), {
      token: alice.token,
      json: { name: 'located', scopes: ['items:read'] },
    });
    const { read } = await followCreated(created, alice.token, /^\/api-keys\/\d+$/);
    expect(read.body).toMatchObject({ id: created.body.id, name: 'located', scopes: ['items:read'] });
    expect(read.body).not.toHaveProperty('key');
    expect(created.headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    ['its path', '/v1/items/', {}, (body: object) => body],
    ['the query', '/items/?version=1', {}, (body: object) => body],
    ['a header', '/items/', { 'x-api-version': '1' }, (body: object) => body],
    ['the body envelope', '/items/', {}, (body: object) => ({ version: 1, data: body })],
  ])(
    "when the request names a version in %s, then Location is under /v1 and a GET of it as is answers the 201's ETag",
    async (_where, path, headers, wrap) => {
      const created = await http.post(rest(path), {
        token: alice.token,
        json: wrap({ name: `loc-${unique()}`, price: 2 }),
        headers,
      });
      const { read } = await followCreated(created, alice.token, /^\/v1\/items\/\d+$/);
      expect(created.headers.get('etag')).toMatch(/\.r1"$/);
      expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    },
  );

  it('when a create carries a precondition its collection cannot meet (If-Match with a tag, If-None-Match: *), then 412 and nothing is created; If-Match: * is met', async () => {
    const name = `loc-${unique()}`;
    for (const headers of [{ 'if-match': '"0.r2"' }, { 'if-none-match': '*' }] as Array<
      Record<string, string>
    >) {
      const refused = await http.post(rest('/items/'), {
        token: alice.token,
        json: { name, price: 2 },
        headers,
      });
      expect({ headers, status: refused.status }).toEqual({ headers, status: 412 });
    }
    const listed = await http.get(rest(`/items/?name=${encodeURIComponent(name)}`), { token: alice.token });
    expect(listed.body).toEqual([]);
    const met = await http.post(rest('/items/'), {
      token: alice.token,
      json: { name, price: 2 },
      headers: { 'if-match': '*' },
    });
    expect(met.status).toBe(201);
  });

  it('when a create with an Idempotency-Key is retried, then the replay names the same Location and ETag', async () => {
    const request = {
      token: alice.token,
      json: { name: `loc-${unique()}`, price: 2 },
      headers: { 'idempotency-key': `loc-${unique()}` },
    };
    const first = await http.post(rest('/items/'), request);
    const replay = await http.post(rest('/items/'), request);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
    expect(replay.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(first.headers.get('location')).toMatch(/^\/items\/\d+$/);
  });
});

describe('account actions', () => {
  it('when an admin deactivates or activates an account, then the answer carries the new ETag, which the next write may use', async () => {
    const admin = await adminToken();
    const target = await member('actioned');
    const account = rest(`/users/${target.id}`);
    const before = (await http.get(account, { token: admin })).headers.get('etag');
    const deactivated = await http.post(rest(`/users/${target.id}/deactivate`), { token: admin });
    expect(deactivated.status).toBe(200);
    const tag = deactivated.headers.get('etag');
    expect(tag).toMatch(/^"\d+\.r2"$/);
    expect(tag).not.toBe(before);
    const read = await http.get(`${account}?include_inactive=true`, { token: admin });
    expect(read.headers.get('etag')).toBe(tag);
    const activated = await http.post(rest(`/users/${target.id}/activate`), { token: admin });
    expect(activated.status).toBe(200);
    expect(activated.headers.get('etag')).not.toBe(tag);
    const written = await http.patch(account, {
      token: admin,
      json: { full_name: 'After Actions' },
      headers: { 'if-match': activated.headers.get('etag')! },
    });
    expect(written.status).toBe(200);
  });

  it('when an admin resets a password, then the answer carries the ETag a read of the account answers afterwards', async () => {
    const admin = await adminToken();
    const target = await member('resetted');
    const reset = await http.post(rest(`/users/${target.id}/reset-password`), {
      token: admin,
      json: { new_password: `pw-${unique()}-9` },
    });
    expect(reset.status).toBe(200);
    expect(reset.headers.get('etag')).toMatch(/^"\d+\.r2"$/);
    const read = await http.get(rest(`/users/${target.id}`), { token: admin });
    expect(read.headers.get('etag')).toBe(reset.headers.get('etag'));
  });
});
