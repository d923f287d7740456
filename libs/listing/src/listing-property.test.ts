/**
 * Component property test of the listing library against the real FerretDB: random datasets (with many equal sort
 * values and missing fields), random filters, sorts and page sizes; the REST query string goes through
 * parseRestListQuery -> toConnectionVariables -> (GraphQL ID coercion) -> planMongoList -> the official driver's
 * find/sort/skip/limit -> toConnection -> toRestListBody, exactly as the facade and a repository do. Walking all
 * pages of each style must give exactly the filtered set in order; with inserts and deletes between pages, cursor
 * and keyset pagination must neither skip nor repeat a record that existed throughout.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { Collection, Db, Document } from 'mongodb';
// A util lib's component test needs the stack's FerretDB; the boundary rule has no test-file exception for util libs.
import { suiteDatabases } from '@platform/testing';
import {
  LISTINGS,
  deriveCursorSecret,
  listIndexes,
  parseRestListQuery,
  planMongoList,
  toConnection,
  toConnectionVariables,
  toRestListBody,
  type ConnectionArgs,
  type FilterInput,
  type ListingSpec,
} from './index';

type Value = string | number | boolean | null;
type Doc = { _id: number } & Record<string, Value | undefined>;

/** The test's own model of each collection: REST name -> stored path, stored values, and how a value is written. */
interface FieldModel {
  rest: string;
  path: string;
  /** Stored values to draw from (few, so sort values repeat); `undefined` = the field is missing. */
  stored: ReadonlyArray<Value | undefined>;
  /** Values a client filters by, as [query-string text, stored equivalent]. */
  filterValues: ReadonlyArray<readonly [string, Value]>;
  operators: readonly string[];
  /** GraphQL passes this field's filter values as `ID` strings. */
  idFilter: boolean;
}

interface CollectionModel {
  spec: ListingSpec;
  fields: readonly FieldModel[];
}

const cents = (values: number[]) => values.map((c) => [String(c / 100), c] as const);

const ITEMS: CollectionModel = {
  spec: LISTINGS.items,
  fields: [
    {
      rest: 'name',
      path: 'name',
      // fast-check favours the first constants: the missing value comes first so that null ordering is exercised.
      stored: [undefined, 'a', '', 'A', 'ab', 'b', 'B', 'ba'],
      filterValues: ['', 'a', 'A', 'ab', 'b', 'B', 'c'].map((v) => [v, v] as const),
      operators: ['eq', 'lt', 'gt', 'in'],
      idFilter: false,
    },
    {
      rest: 'price',
      path: 'priceCents',
      stored: [0, 50, 100, 150, 225, 1999],
      filterValues: cents([0, 50, 100, 120, 150, 225, 1999, 2000]),
      operators: ['eq', 'lt', 'gt', 'in'],
      idFilter: false,
    },
    {
      rest: 'owner_id',
      path: 'ownerId',
      stored: [1, 2, 3],
      filterValues: [1, 2, 3, 4].map((v) => [String(v), v] as const),
      operators: ['eq', 'lt', 'gt', 'in'],
      idFilter: true,
    },
  ],
};

const USERS: CollectionModel = {
  spec: LISTINGS.users,
  fields: [
    {
      rest: 'role',
      path: 'role',
      stored: ['admin', 'member', 'viewer'],
      filterValues: ['admin', 'member', 'viewer'].map((v) => [v, v] as const),
      operators: ['eq', 'lt', 'gt', 'in'],
      idFilter: false,
    },
    {
      rest: 'is_active',
      path: 'isActive',
      stored: [true, false],
      filterValues: [
        ['true', true],
        ['false', false],
      ],
      operators: ['eq', 'in'],
      idFilter: false,
    },
    {
      rest: 'username',
      path: 'username',
      stored: ['al', 'bo', 'Bo', 'cy'],
      filterValues: ['al', 'b', 'bo', 'Bo', 'cz'].map((v) => [v, v] as const),
      operators: ['eq', 'lt', 'gt', 'in'],
      idFilter: false,
    },
  ],
};

// ---------- the reference model (MongoDB semantics, written independently of the library) ----------

/** MongoDB order of one field: missing and null first, then values (all of one type per field here). */
function compareValues(a: Value | undefined, b: Value | undefined): number {
  const x = a ?? null;
  const y = b ?? null;
  if (x === y) return 0;
  if (x === null) return -1;
  if (y === null) return 1;
  return x < y ? -1 : 1;
}

type SortKey = { path: string; direction: 1 | -1 };

function referenceSort(model: CollectionModel, sort: readonly string[]): SortKey[] {
  const keys = sort.map((key) => {
    const rest = key.replace(/^-/, '');
    const path = rest === 'id' ? '_id' : (model.fields.find((f) => f.rest === rest) as FieldModel).path;
    return { path, direction: key.startsWith('-') ? -1 : 1 } as SortKey;
  });
  return keys.some((k) => k.path === '_id') ? keys : [...keys, { path: '_id', direction: 1 }];
}

const comparator = (keys: readonly SortKey[]) => (a: Doc, b: Doc) => {
  for (const key of keys) {
    const order = compareValues(a[key.path], b[key.path]) * key.direction;
    if (order !== 0) return order;
  }
  return 0;
};

interface FilterCondition {
  path: string;
  op: string;
  value: Value | Value[];
}

function matches(doc: Doc, conditions: readonly FilterCondition[]): boolean {
  return conditions.every(({ path, op, value }) => {
    const stored = doc[path];
    if (stored === undefined || stored === null) return false;
    switch (op) {
      case 'eq':
        return stored === value;
      case 'lt':
        return compareValues(stored, value as Value) < 0;
      case 'gt':
        return compareValues(stored, value as Value) > 0;
      default:
        return (value as Value[]).includes(stored);
    }
  });
}

// ---------- generators ----------

interface Scenario {
  docs: Doc[];
  params: Record<string, string>;
  conditions: FilterCondition[];
  sort: string[];
  pageSize: number;
}

function docArbitrary(model: CollectionModel, id: number): fc.Arbitrary<Doc> {
  const record: Record<string, fc.Arbitrary<Value | undefined>> = {};
  for (const field of model.fields) record[field.path] = fc.constantFrom(...field.stored);
  return fc.record(record).map((values) => {
    const doc: Doc = { _id: id };
    for (const [path, value] of Object.entries(values)) if (value !== undefined) doc[path] = value;
    return doc;
  });
}

function datasetArbitrary(model: CollectionModel, maxDocs: number): fc.Arbitrary<Doc[]> {
  return fc
    .uniqueArray(fc.integer({ min: 1, max: 500 }), { minLength: Math.min(5, maxDocs), maxLength: maxDocs })
    .chain((ids) => (ids.length === 0 ? fc.constant([]) : fc.tuple(...ids.map((id) => docArbitrary(model, id)))));
}

function filterArbitrary(model: CollectionModel): fc.Arbitrary<{ params: Record<string, string>; conditions: FilterCondition[] }> {
  const one = fc.constantFrom(...model.fields).chain((field) =>
    fc.constantFrom(...field.operators, 'shorthand').chain((op) =>
      op === 'in'
        ? fc
            .uniqueArray(fc.constantFrom(...field.filterValues), { minLength: 1, maxLength: 3, selector: ([text]) => text })
            .map((values) => ({ field, op, text: values.map(([t]) => t).join(','), value: values.map(([, v]) => v) as Value | Value[] }))
        : fc.constantFrom(...field.filterValues).map(([text, value]) => ({ field, op, text, value: value as Value | Value[] })),
    ),
  );
  return fc.array(one, { maxLength: 2 }).map((picked) => {
    const params: Record<string, string> = {};
    const conditions: FilterCondition[] = [];
    const used = new Set<string>();
    for (const { field, op, text, value } of picked) {
      const operator = op === 'shorthand' ? 'eq' : op;
      if (used.has(`${field.path}:${operator}`)) continue; // a repeated filter is a client error, tested elsewhere
      used.add(`${field.path}:${operator}`);
      params[op === 'shorthand' ? field.rest : `${field.rest}[${op}]`] = text;
      conditions.push({ path: field.path, op: operator, value });
    }
    return { params, conditions };
  });
}

function sortArbitrary(model: CollectionModel): fc.Arbitrary<string[]> {
  const names = [...model.fields.map((f) => f.rest), 'id'];
  return fc
    .uniqueArray(fc.constantFrom(...names), { maxLength: 3 })
    .chain((keys) => fc.tuple(...keys.map((key) => fc.boolean().map((descending) => (descending ? `-${key}` : key)))))
    .map((keys) => [...keys]);
}

function scenarioArbitrary(model: CollectionModel, maxDocs: number): fc.Arbitrary<Scenario> {
  return fc
    .record({
      docs: datasetArbitrary(model, maxDocs),
      filter: filterArbitrary(model),
      sort: sortArbitrary(model),
      pageSize: fc.integer({ min: 1, max: 6 }),
    })
    .map(({ docs, filter, sort, pageSize }) => ({ docs, params: filter.params, conditions: filter.conditions, sort, pageSize }));
}

// ---------- the system under test, wired as the REST facade and a repository wire it ----------

const cursorSecret = deriveCursorSecret(randomBytes(32).toString('base64url'));

/** What the GraphQL layer does to variables: `ID` filter values arrive in the subgraph as strings. */
function throughGraphQL(model: CollectionModel, filter: FilterInput): FilterInput {
  const out: FilterInput = JSON.parse(JSON.stringify(filter)) as FilterInput;
  const idFields = new Set(['id', ...model.fields.filter((f) => f.idFilter).map((f) => model.spec.fields.find((s) => s.rest === f.rest)!.graphql)]);
  for (const [name, ops] of Object.entries(out)) {
    if (!idFields.has(name)) continue;
    for (const [op, value] of Object.entries(ops)) {
      (ops as Record<string, unknown>)[op] = Array.isArray(value) ? value.map(String) : String(value);
    }
  }
  return out;
}

async function serve(model: CollectionModel, collection: Collection<Doc>, query: Record<string, unknown>): Promise<unknown> {
  const listQuery = parseRestListQuery(query, model.spec, { cursorSecret });
  const variables = toConnectionVariables(listQuery);
  const args: ConnectionArgs = {
    first: variables.first,
    after: variables.after,
    offset: variables.offset,
    filter: throughGraphQL(model, variables.filter),
    sort: variables.sort,
  };
  const plan = planMongoList(model.spec, args, cursorSecret, { facadeCall: true });
  const docs = await collection
    .find(plan.filter as Document)
    .sort(plan.sort)
    .skip(plan.skip)
    .limit(plan.limit)
    .toArray();
  const connection = toConnection(docs, plan, model.spec, args, cursorSecret, (filter) => collection.countDocuments(filter as Document));
  const totalCount = variables.withTotal ? await connection.totalCount() : null;
  return toRestListBody(listQuery, { nodes: connection.nodes, pageInfo: connection.pageInfo, totalCount }, (doc) => doc);
}

type Between = (pageNumber: number) => Promise<void>;
const nothing: Between = async () => undefined;
const MAX_PAGES = 200;

async function walkOffset(model: CollectionModel, col: Collection<Doc>, s: Scenario): Promise<Doc[]> {
  const seen: Doc[] = [];
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const params = { ...s.params, sort: s.sort, [page % 2 ? 'skip' : 'offset']: String(page * s.pageSize), limit: String(s.pageSize) };
    const body = (await serve(model, col, params)) as Doc[];
    expect(Array.isArray(body)).toBe(true);
    seen.push(...body);
    if (body.length < s.pageSize) return seen;
  }
  throw new Error('offset walk did not end');
}

async function walkPages(model: CollectionModel, col: Collection<Doc>, s: Scenario, expectedTotal: number): Promise<Doc[]> {
  const seen: Doc[] = [];
  for (let page = 1; page < MAX_PAGES; page += 1) {
    const body = (await serve(model, col, { ...s.params, sort: s.sort, page: String(page), size: String(s.pageSize) })) as {
      items: Doc[];
      total: number;
      page: number;
      size: number;
    };
    expect({ total: body.total, page: body.page, size: body.size }).toEqual({ total: expectedTotal, page, size: s.pageSize });
    seen.push(...body.items);
    if (page * s.pageSize >= body.total) return seen;
  }
  throw new Error('page walk did not end');
}

async function walkCursor(model: CollectionModel, col: Collection<Doc>, s: Scenario, between: Between, expectedTotal?: number): Promise<Doc[]> {
  const seen: Doc[] = [];
  let token: string | null = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const params: Record<string, unknown> = { ...s.params, sort: s.sort, pageSize: String(s.pageSize) };
    if (token !== null) params[page % 2 ? 'pageToken' : 'cursor'] = token;
    const body = (await serve(model, col, params)) as { data: Doc[]; pagination: { nextPageToken: string | null; totalCount: number; pageSize: number } };
    expect(body.pagination.pageSize).toBe(s.pageSize);
    if (expectedTotal !== undefined) expect(body.pagination.totalCount).toBe(expectedTotal);
    expect(body.data.length).toBeLessThanOrEqual(s.pageSize);
    seen.push(...body.data);
    token = body.pagination.nextPageToken;
    if (token === null) return seen;
    expect(body.data).toHaveLength(s.pageSize);
    await between(page);
  }
  throw new Error('cursor walk did not end');
}

async function walkKeyset(model: CollectionModel, col: Collection<Doc>, s: Scenario, between: Between): Promise<Doc[]> {
  const seen: Doc[] = [];
  let lastSeenId = 0;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const body = (await serve(model, col, { ...s.params, lastSeenId: String(lastSeenId), limit: String(s.pageSize) })) as Doc[];
    seen.push(...body);
    if (body.length < s.pageSize) return seen;
    lastSeenId = body[body.length - 1]!._id;
    await between(page);
  }
  throw new Error('keyset walk did not end');
}

const ids = (docs: readonly Doc[]) => docs.map((d) => d._id);

// ---------- the properties ----------

describe('listing over FerretDB (property tests)', () => {
  const databases = suiteDatabases();
  let db: Db;
  const collections = new Map<CollectionModel, Collection<Doc>>();

  beforeAll(async () => {
    db = databases.fresh('listing_property_');
    for (const [model, name] of [
      [ITEMS, 'items'],
      [USERS, 'users'],
    ] as const) {
      const collection = db.collection<Doc>(name);
      for (const index of listIndexes(model.spec, name)) await collection.createIndex(index.key);
      collections.set(model, collection);
    }
  });

  async function load(model: CollectionModel, docs: readonly Doc[]): Promise<Collection<Doc>> {
    const collection = collections.get(model)!;
    await collection.deleteMany({});
    if (docs.length > 0) await collection.insertMany(docs.map((doc) => ({ ...doc })));
    return collection;
  }

  it('when the server sorts and compares, then FerretDB follows the MongoDB semantics the reference model assumes', async () => {
    const collection = await load(ITEMS, [
      { _id: 1, name: 'b', priceCents: 100 },
      { _id: 2, priceCents: 150 },
      { _id: 3, name: null, priceCents: 100 },
      { _id: 4, name: 'B', priceCents: 50 },
      { _id: 5, name: '', priceCents: 100 },
    ]);
    const order = async (sort: Array<[string, 1 | -1]>, filter: Document = {}) => ids(await collection.find(filter).sort(sort).toArray());
    expect(await order([['name', 1], ['_id', 1]])).toEqual([2, 3, 5, 4, 1]);
    expect(await order([['name', -1], ['_id', 1]])).toEqual([1, 4, 5, 2, 3]);
    expect(await order([['priceCents', -1], ['_id', 1]])).toEqual([2, 1, 3, 5, 4]);
    expect(await order([['_id', 1]], { name: null })).toEqual([2, 3]);
    expect(await order([['_id', 1]], { name: { $ne: null } })).toEqual([1, 4, 5]);
    expect(await order([['_id', 1]], { name: { $lt: 'b' } })).toEqual([4, 5]);
    expect(await order([['_id', 1]], { priceCents: { $gt: 99.5, $lt: 100.5 } })).toEqual([1, 3, 5]);
  });

  for (const [label, model, runs] of [
    ['items', ITEMS, 40],
    ['users', USERS, 20],
  ] as const) {
    it(`when all pages of ${label} are walked in each style, then exactly the filtered set comes back in order, without duplicates or gaps`, async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArbitrary(model, 30), async (s) => {
          const collection = await load(model, s.docs);
          const expected = s.docs.filter((doc) => matches(doc, s.conditions));
          const ordered = ids([...expected].sort(comparator(referenceSort(model, s.sort))));
          const byId = ids([...expected].sort((a, b) => a._id - b._id));

          expect(ids(await walkOffset(model, collection, s))).toEqual(ordered);
          expect(ids(await walkPages(model, collection, s, expected.length))).toEqual(ordered);
          expect(ids(await walkCursor(model, collection, s, nothing, expected.length))).toEqual(ordered);
          expect(ids(await walkKeyset(model, collection, s, nothing))).toEqual(byId);
        }),
        { numRuns: runs },
      );
    });
  }

  it('when records are inserted and deleted between page requests, then cursor and keyset pagination neither skip nor repeat records that existed throughout', async () => {
    const changes = fc.array(
      fc.record({ insert: fc.array(docArbitrary(ITEMS, 0), { maxLength: 3 }), deletions: fc.array(fc.nat(), { maxLength: 2 }) }),
      { minLength: 8, maxLength: 8 },
    );
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary(ITEMS, 30), changes, fc.boolean(), async (s, plannedChanges, keyset) => {
        const collection = await load(ITEMS, s.docs);
        const present = new Map(s.docs.map((doc) => [doc._id, doc]));
        const deleted = new Set<number>();
        let nextId = 1000;
        const between: Between = async (page) => {
          // Changes during the first pages only, so that a walk ends even when inserts land ahead of it.
          const change = plannedChanges[page];
          if (!change) return;
          const inserted = change.insert.map((doc) => ({ ...doc, _id: (nextId += 1) }));
          if (inserted.length > 0) await collection.insertMany(inserted.map((doc) => ({ ...doc })));
          inserted.forEach((doc) => present.set(doc._id, doc));
          const candidates = [...present.keys()].sort((a, b) => a - b);
          for (const pick of change.deletions) {
            if (candidates.length === 0) break;
            const id = candidates.splice(pick % candidates.length, 1)[0]!;
            await collection.deleteOne({ _id: id });
            present.delete(id);
            deleted.add(id);
          }
        };

        const walked = keyset ? await walkKeyset(ITEMS, collection, s, between) : await walkCursor(ITEMS, collection, s, between);
        const order = keyset ? (a: Doc, b: Doc) => a._id - b._id : comparator(referenceSort(ITEMS, s.sort));

        expect(new Set(ids(walked)).size).toBe(walked.length);
        for (const doc of walked) expect(matches(doc, s.conditions)).toBe(true);
        for (let i = 1; i < walked.length; i += 1) expect(order(walked[i - 1]!, walked[i]!)).toBeLessThan(0);
        const throughout = s.docs.filter((doc) => !deleted.has(doc._id) && matches(doc, s.conditions));
        expect(ids(walked).filter((id) => throughout.some((doc) => doc._id === id)).sort((a, b) => a - b)).toEqual(
          ids(throughout).sort((a, b) => a - b),
        );
      }),
      { numRuns: 40 },
    );
  });

  it('when a page token is replayed with other filters or tampered with, then the request is refused naming pageToken', async () => {
    const collection = await load(ITEMS, [1, 2, 3].map((id) => ({ _id: id, name: 'a', priceCents: 100 * id, ownerId: 1 })));
    const first = (await serve(ITEMS, collection, { 'price[gt]': '0', pageSize: '1' })) as { pagination: { nextPageToken: string } };
    const token = first.pagination.nextPageToken;
    expect(token).toEqual(expect.any(String));
    await expect(serve(ITEMS, collection, { 'price[gt]': '1', pageToken: token })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: [{ field: 'pageToken', message: 'was issued for a different filter or sort' }],
    });
    await expect(serve(ITEMS, collection, { 'price[gt]': '0', pageToken: `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}` })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: [{ field: 'pageToken' }],
    });
  });
});
