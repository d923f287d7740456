/**
 * An item's category: a field added by one entry in the item's declaration (docs/architecture.md, "A new field on a
 * resource") reaches REST in every version, OpenAPI, GraphQL, the filters and the sort of both, the typed client and
 * the database's indexes. An item without one has no `category` property in REST (existing clients see their items
 * unchanged) and `category: null` in GraphQL.
 */
import { MongoClient } from 'mongodb';
import { bearerAuth, createApiClient, type Schemas } from '@platform/client';
import { http } from '@platform/testing';
import { gatewayGraphql, member, rest, stack, unique, type Member } from './test/resources-support';

jest.setTimeout(60_000);

let owner: Member;
/** A prefix no other test's categories share, so listings filtered by it hold this file's items only. */
const tag = `cat${unique()}`;
const [first, second] = [`${tag}-a`, `${tag}-b`];

beforeAll(async () => {
  owner = await member('catown');
});

const createItem = (json: unknown) => http.post(rest('/items/'), { token: owner.token, json });
const ids = (body: Array<{ id: number }>) => body.map((item) => item.id);

describe('an item category', () => {
  it('when an item is created with one, then every API version shows it; an item without one has no category property', async () => {
    const created = await createItem({ name: 'Lamp', price: 5, category: first });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'Lamp',
      description: null,
      price: 5,
      category: first,
      owner_id: owner.id,
    });
    for (const prefix of ['', '/v2', '/v1']) {
      const read = await http.get(rest(`${prefix}/items/${created.body.id}`), { token: owner.token });
      expect({ prefix, body: read.body }).toEqual({ prefix, body: created.body });
    }
    const plain = await createItem({ name: 'Desk', price: 9 });
    expect(plain.body).toEqual({ id: expect.any(Number), name: 'Desk', description: null, price: 9, owner_id: owner.id });
  });

  it('when an item is replaced or modified, then the category follows: set, kept by a PATCH without it, removed by null or a PUT without it', async () => {
    const { body } = await createItem({ name: 'Shelf', price: 3 });
    const path = rest(`/items/${body.id}`);
    expect((await http.patch(path, { token: owner.token, json: { category: second } })).body.category).toBe(second);
    expect((await http.patch(path, { token: owner.token, json: { price: 4 } })).body.category).toBe(second);
    expect((await http.patch(path, { token: owner.token, json: { category: null } })).body).not.toHaveProperty('category');
    expect((await http.put(path, { token: owner.token, json: { name: 'Shelf', price: 4, category: first } })).body.category).toBe(first);
    expect((await http.put(path, { token: owner.token, json: { name: 'Shelf', price: 4 } })).body).not.toHaveProperty('category');
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['51 characters long', 'c'.repeat(51)],
    ['a number', 7],
    ['holding NUL', 'a\u0000b'],
  ])('when the category is %s, then the validation error names it', async (_label, category) => {
    const response = await createItem({ name: 'Bad', price: 1, category });
    expect(response.status).toBe(422);
    expect(JSON.stringify(response.body)).toContain('category');
  });

  it('when items are listed by category, then REST and GraphQL filter and sort on it', async () => {
    const made: Record<string, number> = {};
    for (const [name, category] of [['b1', second], ['a1', first], ['a2', first], ['none', undefined]] as const) {
      made[name] = (await createItem({ name: `${tag} ${name}`, price: 1, ...(category ? { category } : {}) })).body.id;
    }
    const list = async (query: string) => {
      const response = await http.get(rest(`/items/?owner_id=${owner.id}&name[gt]=${tag}&name[lt]=${tag}~&${query}`), { token: owner.token });
      expect(response.status).toBe(200);
      return ids(response.body);
    };
    expect(await list(`category=${first}`)).toEqual([made['a1'], made['a2']]);
    expect(await list(`category[in]=${second},${first}`)).toEqual([made['b1'], made['a1'], made['a2']]);
    expect(await list(`category[gt]=${first}`)).toEqual([made['b1']]);
    expect(await list('sort=-category')).toEqual([made['b1'], made['a1'], made['a2'], made['none']]);
    const page = await http.get(rest(`/items/?owner_id=${owner.id}&name[gt]=${tag}&name[lt]=${tag}~&sort=category&pageSize=3`), { token: owner.token });
    expect(ids(page.body.data)).toEqual([made['none'], made['a1'], made['a2']]);
    const next = await http.get(
      rest(`/items/?owner_id=${owner.id}&name[gt]=${tag}&name[lt]=${tag}~&sort=category&pageSize=3&pageToken=${page.body.pagination.nextPageToken}`),
      { token: owner.token },
    );
    expect(ids(next.body.data)).toEqual([made['b1']]);

    const graphql = await http.graphql(
      gatewayGraphql,
      'query ($tag: String!) { items(filter: { name: { gt: $tag } category: { in: ["' + first + '", "' + second + '"] } }, sort: ["-category", "id"]) { nodes { id category } } }',
      { tag },
      { token: owner.token },
    );
    expect(graphql.body.errors).toBeUndefined();
    expect(graphql.body.data.items.nodes).toEqual([
      { id: String(made['b1']), category: second },
      { id: String(made['a1']), category: first },
      { id: String(made['a2']), category: first },
    ]);
    const without = await http.graphql(gatewayGraphql, 'query ($id: ID!) { item(id: $id) { category } }', { id: String(made['none']) }, { token: owner.token });
    expect(without.body).toEqual({ data: { item: { category: null } } });
    const bad = await http.get(rest('/items/?category[gt]=$x'), { token: owner.token });
    expect(bad.status).toBe(422);
  });

  it('when a GraphQL client creates and changes an item, then the category takes the same rules', async () => {
    const create = await http.graphql(
      gatewayGraphql,
      'mutation ($input: CreateItemInput!) { createItem(input: $input) { id category } }',
      { input: { name: 'GraphQL lamp', price: 2, category: first } },
      { token: owner.token },
    );
    expect(create.body.data.createItem.category).toBe(first);
    const refused = await http.graphql(
      gatewayGraphql,
      'mutation ($id: ID!) { updateItem(id: $id, input: { category: "  " }) { id } }',
      { id: create.body.data.createItem.id },
      { token: owner.token },
    );
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: [{ field: 'input.category', message: 'must not be blank' }],
    });
  });

  it('when /openapi.json is read, then the Item, its bodies and the listing document the category', async () => {
    const { body: document } = await http.get(rest('/openapi.json'));
    const schemas = document.components.schemas;
    expect(schemas.Item.properties.category).toMatchObject({ type: 'string', maxLength: 50 });
    expect(schemas.Item.required).not.toContain('category');
    for (const body of ['ItemCreate', 'ItemReplace', 'ItemUpdate']) {
      expect(JSON.stringify(schemas[body].properties.category)).toMatch(/"maxLength":50/);
      expect(schemas[body].required ?? []).not.toContain('category');
    }
    const parameters = JSON.stringify(document.paths['/items/'].get.parameters);
    for (const name of ['"category"', '"category[in]"', '"category[gt]"', '"-category"']) expect(parameters).toContain(name);
  });

  it('when the typed client creates and reads an item with a category, then its types carry it', async () => {
    const client = createApiClient(stack.restUrl);
    client.use(bearerAuth(owner.token));
    const input: Schemas['ItemCreate'] = { name: 'Typed', price: 1, category: second };
    const created = await client.POST('/items/', { body: input });
    const item: Schemas['Item'] | undefined = created.data;
    expect(item?.category).toBe(second);
  });

  it('when the items subgraph started, then the category has its ascending and descending listing indexes', async () => {
    const client = new MongoClient(stack.mongoUrl);
    try {
      const names = (await client.db('api_items').collection('items').listIndexes().toArray()).map((index) => index['name']);
      expect(names).toEqual(expect.arrayContaining(['category_1__id_1', 'category_-1__id_1']));
    } finally {
      await client.close();
    }
  });
});
