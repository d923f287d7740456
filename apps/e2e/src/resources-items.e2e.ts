/** Items over the real stack: CRUD, validation bounds, exact prices, ownership, admin owner_id, ids, listing, OpenAPI. */
import { http } from '@platform/testing';
import { member, rest, twoMembersAndAdmin, type Member } from './test/resources-support';

// Registrations hash passwords (argon2id) on a shared 2-core machine: allow more than jest's 5 s default.
jest.setTimeout(60_000);

/** The value libs/testing/src/jest/global-setup.ts gives BOOTSTRAP_API_KEY (every *:read scope). */
const BOOTSTRAP_API_KEY = 'test-bootstrap-api-key-0123456789';

let alice: Member;
let bob: Member;
let admin: string;

beforeAll(async () => {
  ({ alice, bob, admin } = await twoMembersAndAdmin('itema', 'itemb'));
});

const createItem = (token: string, json: unknown) => http.post(rest('/items/'), { token, json });

describe('items', () => {
  it('when a member creates an item, then 201 returns id plus the submitted fields, owned by the caller, and GET returns it', async () => {
    const created = await createItem(alice.token, { name: 'Desk lamp', description: 'Brass', price: 24.99 });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'Desk lamp',
      description: 'Brass',
      price: 24.99,
      owner_id: alice.id,
    });

    const read = await http.get(rest(`/items/${created.body.id}`), { token: bob.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it('when prices with two decimals are stored, then they come back exactly (no float drift)', async () => {
    for (const price of [0.1, 0.29, 19.99, 0, 1_000_000_000, 123456.78]) {
      const created = await createItem(alice.token, { name: `p${price}`, price });
      expect(created.status).toBe(201);
      const read = await http.get(rest(`/items/${created.body.id}`), { token: alice.token });
      expect(read.body.price).toBe(price);
    }
  });

  it.each([
    ['an empty name', { name: '', price: 1 }, 'name'],
    ['a blank name', { name: '   ', price: 1 }, 'name'],
    ['a 201-character name', { name: 'x'.repeat(201), price: 1 }, 'name'],
    ['a 5,001-character description', { name: 'ok', description: 'd'.repeat(5001), price: 1 }, 'description'],
    ['a negative price', { name: 'ok', price: -0.01 }, 'price'],
    ['a price with 3 decimals', { name: 'ok', price: 1.234 }, 'price'],
    ['a price given as a string', { name: 'ok', price: '12' }, 'price'],
    ['no price', { name: 'ok' }, 'price'],
    ['no name', { price: 3 }, 'name'],
    ['an id', { name: 'ok', price: 1, id: 5 }, 'id'],
  ])('when the body has %s, then 422 names the field', async (_label, body, field) => {
    const response = await createItem(alice.token, body);
    expect(response.status).toBe(422);
    expect(response.text).toContain(field);
  });

  it('when the bounds are met exactly, then the item is created', async () => {
    const response = await createItem(alice.token, {
      name: 'n'.repeat(200),
      description: 'd'.repeat(5000),
      price: 0,
    });
    expect(response.status).toBe(201);
  });

  it('when the item id is not an integer, then 400; when absent, then 404', async () => {
    expect((await http.get(rest('/items/abc'), { token: alice.token })).status).toBe(400);
    expect((await http.get(rest('/items/0'), { token: alice.token })).status).toBe(400);
    expect((await http.get(rest('/items/987654321'), { token: alice.token })).status).toBe(404);
    expect((await http.delete(rest('/items/987654321'), { token: alice.token })).status).toBe(404);
    expect(
      (await http.patch(rest('/items/987654321'), { token: alice.token, json: { price: 1 } })).status,
    ).toBe(404);
  });

  it('when the owner replaces and modifies an item, then PUT resets the description and PATCH changes only what it names', async () => {
    const created = await createItem(alice.token, { name: 'Chair', description: 'Oak', price: 50 });
    const patched = await http.patch(rest(`/items/${created.body.id}`), {
      token: alice.token,
      json: { price: 45.5 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created.body, price: 45.5 });
    const replaced = await http.put(rest(`/items/${created.body.id}`), {
      token: alice.token,
      json: { name: 'Stool', price: 20 },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({
      id: created.body.id,
      name: 'Stool',
      description: null,
      price: 20,
      owner_id: alice.id,
    });
    const incomplete = await http.put(rest(`/items/${created.body.id}`), {
      token: alice.token,
      json: { name: 'Stool' },
    });
    expect(incomplete.status).toBe(422);
    expect(incomplete.text).toContain('price');
  });

  it("when B modifies or deletes A's item, then 403 and the item is unchanged", async () => {
    const created = await createItem(alice.token, { name: 'Mine', price: 5 });
    const id = created.body.id as number;
    expect((await http.patch(rest(`/items/${id}`), { token: bob.token, json: { price: 1 } })).status).toBe(
      403,
    );
    expect(
      (await http.put(rest(`/items/${id}`), { token: bob.token, json: { name: 'x', price: 1 } })).status,
    ).toBe(403);
    expect((await http.delete(rest(`/items/${id}`), { token: bob.token })).status).toBe(403);
    expect((await http.get(rest(`/items/${id}`), { token: bob.token })).body).toEqual(created.body);
  });

  it('when a member sets owner_id to someone else, then 403; when an admin does, then the item belongs to that user', async () => {
    expect((await createItem(alice.token, { name: 'gift', price: 1, owner_id: bob.id })).status).toBe(403);
    expect((await createItem(alice.token, { name: 'own', price: 1, owner_id: alice.id })).status).toBe(201);
    const byAdmin = await createItem(admin, { name: 'assigned', price: 2, owner_id: bob.id });
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body.owner_id).toBe(bob.id);
    const moved = await http.patch(rest(`/items/${byAdmin.body.id}`), {
      token: admin,
      json: { owner_id: alice.id },
    });
    expect(moved.body.owner_id).toBe(alice.id);
    expect(
      (
        await http.patch(rest(`/items/${byAdmin.body.id}`), {
          token: alice.token,
          json: { owner_id: bob.id },
        })
      ).status,
    ).toBe(403);
  });

  it('when an admin modifies or deletes any item, then it is allowed; the deleted item is 404 afterwards', async () => {
    const created = await createItem(alice.token, { name: 'to delete', price: 3 });
    expect(
      (await http.patch(rest(`/items/${created.body.id}`), { token: admin, json: { name: 'renamed' } })).body
        .name,
    ).toBe('renamed');
    const deleted = await http.delete(rest(`/items/${created.body.id}`), { token: admin });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await http.get(rest(`/items/${created.body.id}`), { token: alice.token })).status).toBe(404);
  });

  it('when the owner deletes an item, then 204 with an empty body and a second delete is 404', async () => {
    const created = await createItem(bob.token, { name: 'gone', price: 3 });
    const first = await http.delete(rest(`/items/${created.body.id}`), { token: bob.token });
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    expect((await http.delete(rest(`/items/${created.body.id}`), { token: bob.token })).status).toBe(404);
  });

  it('when there is no credential, then 401; when the token lacks items:write, then 403', async () => {
    expect((await http.get(rest('/items/'))).status).toBe(401);
    expect((await http.post(rest('/items/'), { json: { name: 'x', price: 1 } })).status).toBe(401);
    const readOnly = await member('itemr', 'items:read');
    const response = await createItem(readOnly.token, { name: 'x', price: 1 });
    expect(response.status).toBe(403);
    expect(response.text).toContain('items:write');
  });

  it('when items are listed, then the default is a JSON array and owner_id/price filters and sort apply', async () => {
    const owner = await member('iteml');
    for (const price of [3, 1.5, 2.25]) await createItem(owner.token, { name: `list ${price}`, price });
    const plain = await http.get(rest(`/items/?owner_id=${owner.id}&sort=-price`), { token: alice.token });
    expect(plain.status).toBe(200);
    expect(plain.body.map((item: { price: number }) => item.price)).toEqual([3, 2.25, 1.5]);
    const cheap = await http.get(rest(`/items/?owner_id=${owner.id}&price[lt]=2.25`), { token: alice.token });
    expect(cheap.body.map((item: { price: number }) => item.price)).toEqual([1.5]);
    const page = await http.get(rest(`/items/?owner_id=${owner.id}&pageSize=2`), { token: alice.token });
    expect(page.body.pagination).toEqual({ nextPageToken: expect.any(String), totalCount: 3, pageSize: 2 });
    const next = await http.get(
      rest(`/items/?owner_id=${owner.id}&pageSize=2&pageToken=${page.body.pagination.nextPageToken}`),
      {
        token: alice.token,
      },
    );
    expect(next.body.data).toHaveLength(1);
    expect((await http.get(rest('/items/?price=cheap'), { token: alice.token })).status).toBe(422);
  });

  it('when an API key is sent instead of a bearer token, then GET /items/ and GET /items/{id} answer 200', async () => {
    const created = await createItem(alice.token, { name: 'keyed', price: 4 });
    const headers = { 'x-api-key': BOOTSTRAP_API_KEY };
    const list = await http.get(rest(`/items/?owner_id=${alice.id}`), { headers });
    expect(list.status).toBe(200);
    expect(list.body).toEqual(expect.arrayContaining([created.body]));
    expect((await http.get(rest(`/items/${created.body.id}`), { headers })).body).toEqual(created.body);
    expect((await http.get(rest('/items/'), { headers: { 'x-api-key': 'wrong-key' } })).status).toBe(401);
  });

  it('when many items are created at once, then every one is created with its own id', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, n) => createItem(bob.token, { name: `burst ${n}`, price: n })),
    );
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => 201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(10);
  });

  it('when the OpenAPI document is read, then every items operation has schemas, security and scope', async () => {
    const doc = (await http.get(rest('/openapi.json'))).body;
    expect(doc.paths['/items/'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ItemCreate',
    });
    expect(doc.paths['/items/'].get.security).toEqual(
      expect.arrayContaining([{ apiKeyHeader: [] }, { bearerAuth: [] }]),
    );
    expect(doc.paths['/items/{item_id}'].get.responses['400']).toBeDefined();
    for (const method of ['get', 'put', 'patch', 'delete'])
      expect(doc.paths['/items/{item_id}'][method]).toBeDefined();
    expect(doc.components.schemas.Item.properties.price).toBeDefined();
    expect(doc.components.schemas.ItemCreate.properties.name.maxLength).toBe(200);
  });
});
