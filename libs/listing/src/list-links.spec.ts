import { listLinks } from './list-links';
import type { ListQuery } from './listing-types';

const query = (pagination: ListQuery['pagination']): ListQuery => ({ filter: {}, sort: ['id'], pagination });
const more = { endCursor: 'c', hasNextPage: true };
const end = { endCursor: null, hasNextPage: false };
type Page = Parameters<typeof listLinks>[2];

describe('listLinks', () => {
  it.each<[string, string, ListQuery['pagination'], Page, string]>([
    [
      'when a page/size listing is in the middle, then first, prev and next keep the filters and the version prefix',
      '/v1/items/?price%5Bgt%5D=5&page=2&size=10',
      { style: 'page', page: 2, size: 10 },
      { pageInfo: more, totalCount: 35, count: 10, lastId: 20 },
      '</v1/items/?price%5Bgt%5D=5&page=1&size=10>; rel="first", </v1/items/?price%5Bgt%5D=5&page=1&size=10>; rel="prev", ' +
        '</v1/items/?price%5Bgt%5D=5&page=3&size=10>; rel="next"',
    ],
    [
      'when a cursor listing has a next token, then next carries it with the page size and `cursor` is dropped; no prev',
      '/posts?cursor=old&pageSize=5',
      { style: 'cursor', pageSize: 5, pageToken: 'old' },
      { pageInfo: more, count: 5, lastId: 9, nextPageToken: 'tok.en' },
      '</posts?pageSize=5>; rel="first", </posts?pageSize=5&pageToken=tok.en>; rel="next"',
    ],
    [
      'when an offset listing (skip) has more, then next advances by the records returned and prev goes back one page',
      '/users/?skip=10&limit=10',
      { style: 'offset', offset: 10, limit: 10 },
      { pageInfo: more, count: 10, lastId: 20 },
      '</users/?offset=0&limit=10>; rel="first", </users/?offset=0&limit=10>; rel="prev", </users/?offset=20&limit=10>; rel="next"',
    ],
    [
      'when a keyset listing has more, then next starts after the last id and first starts at 0',
      '/items/?lastSeenId=7&limit=3',
      { style: 'keyset', lastSeenId: 7, limit: 3 },
      { pageInfo: more, count: 3, lastId: 12 },
      '</items/?lastSeenId=0&limit=3>; rel="first", </items/?lastSeenId=12&limit=3>; rel="next"',
    ],
    [
      'when a filter value holds a `?` (allowed in a query), then the links keep the whole value',
      '/items/?name=q?1&limit=1',
      { style: 'keyset', lastSeenId: 0, limit: 1 },
      { pageInfo: more, count: 1, lastId: 4 },
      '</items/?name=q%3F1&lastSeenId=0&limit=1>; rel="first", </items/?name=q%3F1&lastSeenId=4&limit=1>; rel="next"',
    ],
  ])('%s', (_name, url, pagination, page, expected) => {
    expect(listLinks(url, query(pagination), page)).toBe(expected);
  });

  it('when the last page/size page is reached, then there is no next', () => {
    const link = listLinks('/items/?page=4&size=10', query({ style: 'page', page: 4, size: 10 }), {
      pageInfo: end,
      totalCount: 35,
      count: 5,
      lastId: 35,
    });
    expect(link).not.toContain('rel="next"');
  });
});
