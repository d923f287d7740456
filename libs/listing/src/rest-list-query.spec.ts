import { z } from 'zod';
import {
  LISTINGS,
  cursorEnvelopeSchema,
  deriveCursorSecret,
  listingQuerySchema,
  pageEnvelopeSchema,
  parseRestListQuery,
  planMongoList,
  toConnection,
  toConnectionVariables,
  parentScope,
  toRestListBody,
  type ListingSpec,
  type ListQuery,
} from './index';
import { fieldError, secret } from './spec-support';

/** A real cursor, issued by the subgraph side for this query. */
function cursorFor(
  query: { filter?: ListQuery['filter']; sort?: string[] },
  spec: ListingSpec = LISTINGS.items,
  scope?: string,
): string {
  const args = { first: 1, filter: query.filter ?? {}, sort: query.sort ?? [] };
  const plan = planMongoList(spec, args, secret, { facadeCall: true, scope });
  const docs = [{ _id: 7, priceCents: 1250, name: 'b', ownerId: 3 }, { _id: 8, priceCents: 1300, name: 'c', ownerId: 3 }];
  const token = toConnection(docs, plan, spec, args, secret, async () => 2).pageInfo.endCursor;
  if (!token) throw new Error('no cursor');
  return token;
}

describe('parseRestListQuery: styles, defaults and bounds', () => {
  it('when no listing parameter is given, then offset style with offset 0 and limit 100 is chosen', () => {
    expect(parseRestListQuery({}, LISTINGS.users)).toEqual({ filter: {}, sort: [], pagination: { style: 'offset', offset: 0, limit: 100 } });
  });

  it('when skip and limit are given, then offset style carries them', () => {
    expect(parseRestListQuery({ skip: '5', limit: '7' }, LISTINGS.users).pagination).toEqual({ style: 'offset', offset: 5, limit: 7 });
    expect(parseRestListQuery({ offset: '3' }, LISTINGS.users).pagination).toEqual({ style: 'offset', offset: 3, limit: 100 });
  });

  it('when page or size is given, then page style with defaults page 1 and size 10 is chosen', () => {
    expect(parseRestListQuery({ page: '2' }, LISTINGS.users).pagination).toEqual({ style: 'page', page: 2, size: 10 });
    expect(parseRestListQuery({ size: '100' }, LISTINGS.users).pagination).toEqual({ style: 'page', page: 1, size: 100 });
  });

  it('when pageSize, pageToken or cursor is given, then cursor style with default pageSize 20 is chosen', () => {
    expect(parseRestListQuery({ pageSize: '5' }, LISTINGS.users).pagination).toEqual({ style: 'cursor', pageSize: 5, pageToken: null });
    expect(parseRestListQuery({ cursor: 'abc' }, LISTINGS.users).pagination).toEqual({ style: 'cursor', pageSize: 20, pageToken: 'abc' });
  });

  it('when lastSeenId is given, then keyset style with default limit 100 is chosen', () => {
    expect(parseRestListQuery({ lastSeenId: '42', limit: '3' }, LISTINGS.posts).pagination).toEqual({ style: 'keyset', lastSeenId: 42, limit: 3 });
    expect(parseRestListQuery({ lastSeenId: '0' }, LISTINGS.posts).pagination).toEqual({ style: 'keyset', lastSeenId: 0, limit: 100 });
  });

  it.each([
    [{ pageSize: '0' }, 'pageSize'],
    [{ pageSize: '101' }, 'pageSize'],
    [{ pageSize: 'ten' }, 'pageSize'],
    [{ size: '0' }, 'size'],
    [{ size: '101' }, 'size'],
    [{ page: '0' }, 'page'],
    [{ page: '-1' }, 'page'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '1001' }, 'limit'],
    [{ limit: '1.5' }, 'limit'],
    [{ offset: '-1' }, 'offset'],
    [{ skip: '-1' }, 'skip'],
    [{ skip: 'x' }, 'skip'],
    [{ lastSeenId: '-1' }, 'lastSeenId'],
    [{ lastSeenId: 'abc' }, 'lastSeenId'],
    [{ lastSeenId: '1', limit: '1001' }, 'limit'],
    [{ limit: '' }, 'limit'],
    [{ limit: ['1', '2'] }, 'limit'],
  ])('when %j is out of range or malformed, then a validation error names %s', (query, field) => {
    expect(fieldError(() => parseRestListQuery(query, LISTINGS.users)).field).toBe(field);
  });

  it.each([
    [{ pageSize: '5', limit: '3' }, 'limit'],
    [{ page: '2', offset: '3' }, 'offset'],
    [{ lastSeenId: '2', offset: '3' }, 'offset'],
    [{ offset: '1', skip: '2' }, 'skip'],
    [{ pageToken: 'a', cursor: 'b' }, 'cursor'],
  ])('when %j mixes styles or aliases, then a validation error names %s', (query, field) => {
    expect(fieldError(() => parseRestListQuery(query, LISTINGS.users)).field).toBe(field);
  });

  it.each(['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf'])(
    'when the query (as express parses it, without a prototype) has %s, then it is refused like any unknown parameter',
    (name) => {
      const query = Object.assign(Object.create(null) as Record<string, unknown>, { pageSize: '1' });
      Object.defineProperty(query, name, { value: '1', enumerable: true });
      expect(fieldError(() => parseRestListQuery(query, LISTINGS.items))).toEqual({ field: name, message: 'is not a known parameter' });
    },
  );

  it('when the style is forced to offset, then page parameters are unknown and others work', () => {
    expect(fieldError(() => parseRestListQuery({ page: '1' }, LISTINGS.users, { forcedStyle: 'offset' }))).toEqual({
      field: 'page',
      message: 'is not a known parameter',
    });
    expect(fieldError(() => parseRestListQuery({ pageSize: '1' }, LISTINGS.users, { forcedStyle: 'offset' })).field).toBe('pageSize');
    expect(parseRestListQuery({ skip: '1' }, LISTINGS.users, { forcedStyle: 'offset' }).pagination).toEqual({ style: 'offset', offset: 1, limit: 100 });
  });

  it('when the style is forced to page, then offset parameters are unknown and page defaults apply', () => {
    expect(fieldError(() => parseRestListQuery({ skip: '1' }, LISTINGS.users, { forcedStyle: 'page' })).field).toBe('skip');
    expect(fieldError(() => parseRestListQuery({ limit: '1' }, LISTINGS.users, { forcedStyle: 'page' })).field).toBe('limit');
    expect(parseRestListQuery({}, LISTINGS.users, { forcedStyle: 'page' }).pagination).toEqual({ style: 'page', page: 1, size: 10 });
  });
});

describe('parseRestListQuery: filters', () => {
  it('when field=value and field[op]=value are given, then they are typed per field and combined', () => {
    const query = parseRestListQuery(
      { name: 'lamp', 'price[gt]': '10.5', 'price[lt]': '20', 'owner_id[in]': '1,2,3' },
      LISTINGS.items,
    );
    expect(query.filter).toEqual({ name: { eq: 'lamp' }, price: { gt: 10.5, lt: 20 }, ownerId: { in: [1, 2, 3] } });
  });

  it('when booleans and enumerations are filtered, then true/false and the allowed values are accepted', () => {
    const query = parseRestListQuery({ is_active: 'false', 'role[in]': 'admin,viewer' }, LISTINGS.users);
    expect(query.filter).toEqual({ isActive: { eq: false }, role: { in: ['admin', 'viewer'] } });
  });

  it.each([
    [{ 'price[gt]': 'abc' }, 'price[gt]', 'must be a number'],
    [{ price: '1e3' }, 'price', 'must be a number'],
    [{ 'price[in]': '1,,2' }, 'price[in]', 'must be a number'],
    [{ owner_id: '1.5' }, 'owner_id', 'must be an integer'],
    [{ 'owner_id[in]': '1,x' }, 'owner_id[in]', 'must be an integer'],
    [{ name: 'lamp\u0000' }, 'name', 'must not contain NUL characters or unpaired surrogates'],
    [{ 'name[in]': 'a,\ud800' }, 'name[in]', 'must not contain NUL characters or unpaired surrogates'],
  ])('when a value does not fit its field (%j), then a validation error names %s', (query, field, message) => {
    expect(fieldError(() => parseRestListQuery(query, LISTINGS.items))).toEqual({ field, message });
  });

  it.each([
    [{ is_active: 'yes' }, 'is_active'],
    [{ role: 'root' }, 'role'],
    [{ 'role[in]': 'admin,root' }, 'role[in]'],
    [{ 'is_active[gt]': 'true' }, 'is_active[gt]'],
    [{ 'username[like]': 'a' }, 'username[like]'],
    [{ 'username[]': 'a' }, 'username[]'],
    [{ status: 'active' }, 'status'],
    [{ 'status[eq]': 'active' }, 'status[eq]'],
    [{ id: '3' }, 'id'],
    [{ 'username[eq][x]': 'a' }, 'username[eq][x]'],
    [{ 'username[$ne]': 'a' }, 'username[$ne]'],
    [{ $where: '1' }, '$where'],
    [{ username: '$ne' }, 'username'],
    [{ username: ['a', 'b'] }, 'username'],
    [{ username: { $ne: 'a' } }, 'username'],
    [{ username: 'a', 'username[eq]': 'b' }, 'username[eq]'],
    [{ 'role[in]': Array.from({ length: 101 }, () => 'admin').join(',') }, 'role[in]'],
  ])('when %j is not an allowed filter, then a validation error names %s', (query, field) => {
    expect(fieldError(() => parseRestListQuery(query as Record<string, unknown>, LISTINGS.users)).field).toBe(field);
  });

  it('when a reserved parameter is given, then it is neither a filter nor an error', () => {
    expect(parseRestListQuery({ version: '2', api_key: 'k' }, LISTINGS.users, { reserved: ['version', 'api_key'] }).filter).toEqual({});
  });
});

describe('parseRestListQuery: sort', () => {
  it('when sort is repeated or comma separated, then REST names become GraphQL keys in order', () => {
    expect(parseRestListQuery({ sort: ['-price', 'owner_id'] }, LISTINGS.items).sort).toEqual(['-price', 'ownerId']);
    expect(parseRestListQuery({ sort: 'name,-id' }, LISTINGS.items).sort).toEqual(['name', '-id']);
  });

  it.each([
    [{ sort: 'colour' }],
    [{ sort: 'ownerId' }],
    [{ sort: ['price', '-price'] }],
    [{ sort: '' }],
    [{ sort: '--price' }],
    [{ lastSeenId: '1', sort: 'price' }],
  ])('when sort %j is not allowed, then a validation error names sort', (query) => {
    expect(fieldError(() => parseRestListQuery(query, LISTINGS.items)).field).toBe('sort');
  });

  it('when keyset pagination is sorted by id, then it is accepted', () => {
    expect(parseRestListQuery({ lastSeenId: '1', sort: 'id' }, LISTINGS.items).sort).toEqual(['id']);
  });
});

describe('parseRestListQuery: page tokens', () => {
  it('when a token issued for the same filters and sort is given, then it is accepted', () => {
    const token = cursorFor({ filter: { price: { gt: 10 } }, sort: ['-price'] });
    const query = parseRestListQuery({ 'price[gt]': '10', sort: '-price', pageToken: token }, LISTINGS.items, { cursorSecret: secret });
    expect(query.pagination).toEqual({ style: 'cursor', pageSize: 20, pageToken: token });
  });

  it('when a token is replayed with other filters, then a validation error names pageToken', () => {
    const token = cursorFor({ filter: { price: { gt: 10 } } });
    expect(fieldError(() => parseRestListQuery({ 'price[gt]': '11', pageToken: token }, LISTINGS.items, { cursorSecret: secret }))).toEqual({
      field: 'pageToken',
      message: 'was issued for a different filter or sort',
    });
  });

  it('when a token is replayed with another sort, then a validation error names cursor', () => {
    const token = cursorFor({ sort: ['name'] });
    expect(fieldError(() => parseRestListQuery({ sort: '-name', cursor: token }, LISTINGS.items, { cursorSecret: secret })).field).toBe('cursor');
  });

  it('when a token is tampered with, then a validation error names pageToken', () => {
    const token = cursorFor({});
    const [body, mac] = token.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { k: number[] };
    payload.k[payload.k.length - 1] = 1;
    const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    for (const bad of [forged, `${body}.${mac.slice(0, -2)}`, `${body}x.${mac}`, 'garbage', '.', 'a'.repeat(3000)]) {
      expect(fieldError(() => parseRestListQuery({ pageToken: bad }, LISTINGS.items, { cursorSecret: secret })).field).toBe('pageToken');
    }
  });

  it.each([
    ['users', LISTINGS.users],
    ['posts', LISTINGS.posts],
    ['comments', LISTINGS.comments],
  ] as const)('when a token of items (no filter, default sort) is used on %s, then a validation error names pageToken', (_name, spec) => {
    const token = cursorFor({});
    expect(parseRestListQuery({ pageToken: token }, LISTINGS.items, { cursorSecret: secret }).pagination).toMatchObject({ pageToken: token });
    expect(fieldError(() => parseRestListQuery({ pageToken: token }, spec, { cursorSecret: secret }))).toEqual({
      field: 'pageToken',
      message: 'was issued for another collection',
    });
  });

  it("when a token of one post's comments is used on another post's comments (or on no post), then it is refused", () => {
    const token = cursorFor({}, LISTINGS.comments, parentScope('post', 5));
    const onPost = (id: number) => ({ cursorSecret: secret, cursorScope: parentScope('post', id) });
    expect(parseRestListQuery({ pageToken: token }, LISTINGS.comments, onPost(5)).pagination).toMatchObject({ pageToken: token });
    expect(fieldError(() => parseRestListQuery({ pageToken: token }, LISTINGS.comments, onPost(6))).message).toBe(
      'was issued for another collection',
    );
    expect(fieldError(() => parseRestListQuery({ cursor: token }, LISTINGS.comments, { cursorSecret: secret })).field).toBe('cursor');
  });

  it('when the subgraph is given a token of another collection as `after`, then it refuses it naming after', () => {
    const token = cursorFor({});
    expect(fieldError(() => planMongoList(LISTINGS.users, { after: token }, secret))).toEqual({
      field: 'after',
      message: 'was issued for another collection',
    });
  });

  it.each([
    [{ pageToken: '' }, 'pageToken'],
    [{ cursor: '' }, 'cursor'],
    [{ pageSize: '5', pageToken: '' }, 'pageToken'],
  ])('when the token is empty (%j), then a validation error names %s', (query, field) => {
    expect(fieldError(() => parseRestListQuery(query, LISTINGS.users, { cursorSecret: secret }))).toEqual({
      field,
      message: 'must not be empty; omit it for the first page',
    });
  });

  it('when a token is signed with another secret, then it is refused', () => {
    const token = cursorFor({});
    const other = deriveCursorSecret('another-secret');
    expect(fieldError(() => parseRestListQuery({ pageToken: token }, LISTINGS.items, { cursorSecret: other })).message).toBe('is not a valid cursor');
  });
});

describe('toConnectionVariables', () => {
  const filter = { name: { eq: 'lamp' } };

  it('when each style is requested, then first/after/offset/withTotal follow it', () => {
    expect(toConnectionVariables({ filter, sort: ['-price'], pagination: { style: 'cursor', pageSize: 5, pageToken: 't' } })).toEqual({
      first: 5, after: 't', offset: null, filter, sort: ['-price'], withTotal: true,
    });
    expect(toConnectionVariables({ filter, sort: [], pagination: { style: 'page', page: 3, size: 10 } })).toEqual({
      first: 10, after: null, offset: 20, filter, sort: [], withTotal: true,
    });
    expect(toConnectionVariables({ filter, sort: [], pagination: { style: 'offset', offset: 7, limit: 100 } })).toEqual({
      first: 100, after: null, offset: 7, filter, sort: [], withTotal: false,
    });
    expect(toConnectionVariables({ filter, sort: [], pagination: { style: 'keyset', lastSeenId: 9, limit: 4 } })).toEqual({
      first: 4, after: null, offset: null, filter: { name: { eq: 'lamp' }, id: { gt: 9 } }, sort: ['id'], withTotal: false,
    });
  });
});

describe('toRestListBody', () => {
  const nodes = [{ id: '1', name: 'a' }, { id: '2', name: 'b' }];
  const toRest = (node: { id: string; name: string }) => ({ id: Number(node.id), name: node.name });

  it('when the style is offset or keyset, then the body is a plain array', () => {
    const body = toRestListBody({ filter: {}, sort: [], pagination: { style: 'offset', offset: 0, limit: 2 } }, { nodes, pageInfo: { endCursor: 'c', hasNextPage: true } }, toRest);
    expect(body).toEqual([{ id: 1, name: 'a' }, { id: 2, name: 'b' }]);
  });

  it('when the style is page, then envelope A carries total, page and size', () => {
    const body = toRestListBody({ filter: {}, sort: [], pagination: { style: 'page', page: 2, size: 2 } }, { nodes, pageInfo: { endCursor: 'c', hasNextPage: true }, totalCount: 9 }, toRest);
    expect(body).toEqual({ items: [{ id: 1, name: 'a' }, { id: 2, name: 'b' }], total: 9, page: 2, size: 2 });
  });

  it('when the style is cursor and more follow, then envelope B carries the next token', () => {
    const body = toRestListBody({ filter: {}, sort: [], pagination: { style: 'cursor', pageSize: 2, pageToken: null } }, { nodes, pageInfo: { endCursor: 'c', hasNextPage: true }, totalCount: 9 }, toRest);
    expect(body).toEqual({ data: [{ id: 1, name: 'a' }, { id: 2, name: 'b' }], pagination: { nextPageToken: 'c', totalCount: 9, pageSize: 2 } });
  });

  it('when the cursor listing is empty or the last page, then nextPageToken is null (and totalCount 0 when empty)', () => {
    const query: ListQuery = { filter: {}, sort: [], pagination: { style: 'cursor', pageSize: 20, pageToken: null } };
    expect(toRestListBody(query, { nodes: [], pageInfo: { endCursor: null, hasNextPage: false }, totalCount: 0 }, toRest)).toEqual({
      data: [], pagination: { nextPageToken: null, totalCount: 0, pageSize: 20 },
    });
    expect(toRestListBody(query, { nodes, pageInfo: { endCursor: 'c', hasNextPage: false }, totalCount: 2 }, toRest)).toMatchObject({
      pagination: { nextPageToken: null, totalCount: 2 },
    });
  });
});

describe('listing OpenAPI schemas', () => {
  const toJson = (schema: z.ZodType) =>
    z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any', reused: 'inline' }) as {
      properties: Record<string, Record<string, unknown>>;
    };

  it('when a collection is documented, then every listing parameter and filter operator is a described property', () => {
    const { properties } = toJson(listingQuerySchema(LISTINGS.users));
    for (const name of ['pageSize', 'pageToken', 'cursor', 'page', 'size', 'lastSeenId', 'limit', 'offset', 'skip', 'sort', 'role', 'role[in]', 'is_active[eq]']) {
      expect(properties[name]?.['description']).toEqual(expect.any(String));
    }
    // No default in the schema (its mere presence selects cursor pagination, so a generated client must not send it):
    // the description states it.
    expect(properties['pageSize']).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(properties['pageSize']).not.toHaveProperty('default');
    expect(properties['pageSize']?.['description']).toContain('20 when omitted');
    expect(properties['sort']).toMatchObject({ type: 'array' });
    expect(properties['sort']).not.toHaveProperty('anyOf');
    expect(properties).not.toHaveProperty('is_active[gt]');
    expect(properties).not.toHaveProperty('id');
  });

  it('when the style is forced, then only that style parameters are documented', () => {
    const { properties } = toJson(listingQuerySchema(LISTINGS.users, { forcedStyle: 'page' }));
    expect(properties).toHaveProperty('page');
    expect(properties).not.toHaveProperty('skip');
    expect(properties).not.toHaveProperty('pageSize');
  });

  it('when the query schema parses a request, then unknown keys pass through for parseRestListQuery to judge', () => {
    expect(listingQuerySchema(LISTINGS.users).parse({ limit: '5', bogus: 'x', sort: ['a', 'b'] })).toEqual({ limit: '5', bogus: 'x', sort: ['a', 'b'] });
  });

  it('when envelopes are built twice for one item type, then the same registered component is returned', () => {
    const item = z.object({ id: z.number() }).meta({ id: 'ListingSpecWidget' });
    expect(pageEnvelopeSchema(item)).toBe(pageEnvelopeSchema(item));
    expect(z.globalRegistry.get(pageEnvelopeSchema(item))?.id).toBe('ListingSpecWidgetPageEnvelope');
    expect(z.globalRegistry.get(cursorEnvelopeSchema(item))?.id).toBe('ListingSpecWidgetCursorEnvelope');
    expect(cursorEnvelopeSchema(item).parse({ data: [], pagination: { nextPageToken: null, totalCount: 0, pageSize: 20 } })).toBeTruthy();
  });
});
