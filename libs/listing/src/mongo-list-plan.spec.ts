import { LISTINGS, deriveCursorSecret, listIndexes, planMongoList, toConnection, type ConnectionArgs } from './index';
import { fieldError, secret } from './spec-support';

const firstPage = <T extends object>(spec: typeof LISTINGS.items | typeof LISTINGS.users, args: ConnectionArgs, docs: T[]) => {
  const plan = planMongoList(spec, args, secret);
  return toConnection(docs, plan, spec, args, secret, async () => docs.length);
};

describe('planMongoList: plans', () => {
  it('when no arguments are given, then the first 20 by id are planned (limit 21 to see a next page)', () => {
    expect(planMongoList(LISTINGS.users, {}, secret)).toEqual({ filter: {}, sort: [['_id', 1]], skip: 0, limit: 21, pageSize: 20, countFilter: {} });
  });

  it('when typed filters are given, then stored paths and $-operators from the allowlist are used; ID strings become integers and prices cents', () => {
    const plan = planMongoList(
      LISTINGS.items,
      { first: 5, offset: 10, filter: { ownerId: { eq: '7', in: ['1', 2] }, price: { gt: 19.99, lt: 10.005 }, name: { eq: 'lamp' } }, sort: ['-price'] },
      secret,
    );
    expect(plan).toEqual({
      filter: { name: { $eq: 'lamp' }, priceCents: { $lt: 1000.5, $gt: 1999 }, ownerId: { $eq: 7, $in: [1, 2] } },
      sort: [['priceCents', -1], ['_id', 1]],
      skip: 10,
      limit: 6,
      pageSize: 5,
      countFilter: { name: { $eq: 'lamp' }, priceCents: { $lt: 1000.5, $gt: 1999 }, ownerId: { $eq: 7, $in: [1, 2] } },
    });
  });

  it('when id is sorted explicitly, then no second _id key is appended', () => {
    expect(planMongoList(LISTINGS.items, { sort: ['-id'] }, secret).sort).toEqual([['_id', -1]]);
    expect(planMongoList(LISTINGS.items, { sort: ['name', 'id'] }, secret).sort).toEqual([['name', 1], ['_id', 1]]);
  });

  it('when null filter operators are given, then they are ignored', () => {
    expect(planMongoList(LISTINGS.users, { filter: { role: { eq: null as unknown as string }, email: null as never } }, secret).filter).toEqual({});
  });
});

describe('planMongoList: client errors name the argument', () => {
  it.each<[ConnectionArgs, string]>([
    [{ first: 0 }, 'first'],
    [{ first: 1001 }, 'first'],
    [{ first: 2.5 }, 'first'],
    [{ offset: -1 }, 'offset'],
    [{ offset: 1.5 }, 'offset'],
    [{ filter: { colour: { eq: 'red' } } as never }, 'filter.colour'],
    [{ filter: { price: { like: 1 } } as never }, 'filter.price.like'],
    [{ filter: { price: { $gt: 1 } } as never }, 'filter.price.$gt'],
    [{ filter: { price: { gt: 'abc' } } }, 'filter.price.gt'],
    [{ filter: { price: { gt: { $ne: 1 } } } as never }, 'filter.price.gt'],
    [{ filter: { price: 5 } as never }, 'filter.price'],
    [{ filter: { ownerId: { eq: '1.5' } } }, 'filter.ownerId.eq'],
    [{ filter: { ownerId: { in: ['1', 'x'] } } }, 'filter.ownerId.in'],
    [{ filter: { ownerId: { in: Array.from({ length: 101 }, (_, i) => i) } } }, 'filter.ownerId.in'],
    [{ filter: { name: { eq: '$where' } } }, 'filter.name.eq'],
    [{ filter: { $where: { eq: '1' } } as never }, 'filter.$where'],
    [{ filter: 'x' as never }, 'filter'],
    [{ sort: ['colour'] }, 'sort'],
    [{ sort: ['owner_id'] }, 'sort'],
    [{ sort: ['price', '-price'] }, 'sort'],
    [{ sort: 'price' as never }, 'sort'],
    [{ after: 'garbage' }, 'after'],
  ])('when %j, then a validation error names %s', (args, field) => {
    expect(fieldError(() => planMongoList(LISTINGS.items, args, secret)).field).toBe(field);
  });

  it('when enum and boolean values are wrong, then the filter path is named', () => {
    expect(fieldError(() => planMongoList(LISTINGS.users, { filter: { role: { eq: 'root' } } }, secret)).field).toBe('filter.role.eq');
    expect(fieldError(() => planMongoList(LISTINGS.users, { filter: { isActive: { eq: 'true' } } }, secret)).field).toBe('filter.isActive.eq');
    expect(fieldError(() => planMongoList(LISTINGS.users, { filter: { isActive: { gt: true } } }, secret)).field).toBe('filter.isActive.gt');
  });

  it('when after and offset are both given, then offset is refused', () => {
    const after = firstPage(LISTINGS.items, { first: 1 }, [{ _id: 1 }, { _id: 2 }]).pageInfo.endCursor;
    expect(fieldError(() => planMongoList(LISTINGS.items, { after, offset: 1 }, secret))).toEqual({ field: 'offset', message: 'cannot be combined with after' });
  });

  it('when a cursor is replayed with another filter or sort, then after is refused', () => {
    const args: ConnectionArgs = { first: 1, filter: { price: { gt: 1 } }, sort: ['name'] };
    const after = firstPage(LISTINGS.items, args, [{ _id: 1, name: 'a', priceCents: 200 }, { _id: 2 }]).pageInfo.endCursor;
    expect(planMongoList(LISTINGS.items, { ...args, after }, secret).filter).toBeTruthy();
    expect(fieldError(() => planMongoList(LISTINGS.items, { ...args, filter: { price: { gt: 2 } }, after }, secret)).field).toBe('after');
    expect(fieldError(() => planMongoList(LISTINGS.items, { ...args, sort: ['-name'], after }, secret)).field).toBe('after');
    expect(fieldError(() => planMongoList(LISTINGS.items, { ...args, after }, deriveCursorSecret('other'))).field).toBe('after');
  });

  it('when a filter is written differently but means the same, then the cursor still applies', () => {
    const args: ConnectionArgs = { first: 1, filter: { ownerId: { in: ['2', '1'] } }, sort: ['name'] };
    const after = firstPage(LISTINGS.items, args, [{ _id: 1, name: 'a' }, { _id: 2 }]).pageInfo.endCursor;
    expect(() => planMongoList(LISTINGS.items, { first: 3, filter: { ownerId: { in: [1, 2, 2] } }, sort: ['name', 'id'], after }, secret)).not.toThrow();
  });
});

describe('toConnection and the keyset condition', () => {
  it('when one more document than the page is found, then it is trimmed and hasNextPage is true', async () => {
    const count = jest.fn(async () => 42);
    const args: ConnectionArgs = { first: 2 };
    const plan = planMongoList(LISTINGS.users, args, secret);
    const connection = toConnection([{ _id: 1 }, { _id: 2 }, { _id: 3 }], plan, LISTINGS.users, args, secret, count);
    expect(connection.nodes).toEqual([{ _id: 1 }, { _id: 2 }]);
    expect(connection.pageInfo.hasNextPage).toBe(true);
    expect(count).not.toHaveBeenCalled();
    expect(await connection.totalCount()).toBe(42);
    expect(await connection.totalCount()).toBe(42);
    expect(count).toHaveBeenCalledTimes(1);
    expect(count).toHaveBeenCalledWith({});
  });

  it('when nothing is found, then endCursor is null and hasNextPage false', () => {
    const connection = firstPage(LISTINGS.users, {}, []);
    expect(connection.pageInfo).toEqual({ endCursor: null, hasNextPage: false });
  });

  it('when a page of a multi-key sort ends, then the next plan continues strictly after the last record in each key direction', () => {
    const args: ConnectionArgs = { first: 1, filter: { name: { gt: 'a' } }, sort: ['-price', 'name'] };
    const after = firstPage(LISTINGS.items, args, [{ _id: 5, priceCents: 1000, name: 'lamp' }, { _id: 6 }]).pageInfo.endCursor;
    const plan = planMongoList(LISTINGS.items, { ...args, after }, secret);
    expect(plan.filter).toEqual({
      $and: [
        { name: { $gt: 'a' } },
        {
          $or: [
            { $or: [{ priceCents: { $lt: 1000 } }, { priceCents: null }] },
            { $and: [{ priceCents: 1000 }, { name: { $gt: 'lamp' } }] },
            { $and: [{ priceCents: 1000 }, { name: 'lamp' }, { _id: { $gt: 5 } }] },
          ],
        },
      ],
    });
    expect(plan.countFilter).toEqual({ name: { $gt: 'a' } });
  });

  it('when the last record lacks a sort field, then ascending continues with the same-null ties and every non-null value', () => {
    const args: ConnectionArgs = { first: 1, sort: ['name'] };
    const after = firstPage(LISTINGS.items, args, [{ _id: 5 }, { _id: 6 }]).pageInfo.endCursor;
    expect(planMongoList(LISTINGS.items, { ...args, after }, secret).filter).toEqual({
      $or: [{ name: { $ne: null } }, { $and: [{ name: null }, { _id: { $gt: 5 } }] }],
    });
    const descending = { first: 1, sort: ['-name'] };
    const afterDesc = firstPage(LISTINGS.items, descending, [{ _id: 5 }, { _id: 6 }]).pageInfo.endCursor;
    expect(planMongoList(LISTINGS.items, { ...descending, after: afterDesc }, secret).filter).toEqual({ $and: [{ name: null }, { _id: { $gt: 5 } }] });
  });

  it('when nodes are already mapped to GraphQL names, then the cursor reads them by name in stored form', () => {
    const args: ConnectionArgs = { first: 1, sort: ['price'] };
    const after = firstPage(LISTINGS.items, args, [{ id: '5', price: 19.99 }, { id: '6' }]).pageInfo.endCursor;
    expect(planMongoList(LISTINGS.items, { ...args, after }, secret).filter).toEqual({
      $or: [{ priceCents: { $gt: 1999 } }, { $and: [{ priceCents: 1999 }, { _id: { $gt: 5 } }] }],
    });
  });
});

describe('listIndexes', () => {
  it('when a collection is listed, then every field has ascending and descending compound indexes with _id', () => {
    expect(listIndexes(LISTINGS.comments, 'comments')).toEqual([
      { collection: 'comments', key: { authorId: 1, _id: 1 } },
      { collection: 'comments', key: { authorId: -1, _id: 1 } },
    ]);
  });
});
