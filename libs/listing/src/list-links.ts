/**
 * RFC 8288 `Link` header of a REST listing: `first`, `prev` (where the style can go back) and `next` (when there is
 * more), built from the request's own URL so filters, sort and the version selector carry over. Every link states its
 * style's parameters explicitly (e.g. `pageSize` with a `pageToken`), so following it never switches style.
 */
import { requestTarget } from '@platform/contracts';
import type { ListQuery, PageInfo } from './listing-types';
import { STYLE_PARAMETERS } from './rest-list-query';

export interface ListPosition {
  pageInfo: PageInfo;
  totalCount?: number | null;
  /** How many records this page holds. */
  count: number;
  /** The id of this page's last record (keyset's next `lastSeenId`). */
  lastId: number | undefined;
  /** The cursor envelope's `nextPageToken` (null on the last page). */
  nextPageToken?: string | null;
}

/** `url` is the request's path and query as sent (express `originalUrl`); the links are relative references to it. */
export function listLinks(url: string, query: ListQuery, position: ListPosition): string {
  const { path, query: search } = requestTarget(url);
  const base = new URLSearchParams(search);
  for (const name of Object.values(STYLE_PARAMETERS).flat()) base.delete(name);
  const at = (values: Record<string, string | number>): string => {
    const params = new URLSearchParams(base);
    for (const [name, value] of Object.entries(values)) params.set(name, String(value));
    return `${path}?${params.toString()}`;
  };
  const links: Array<[string, string]> = [];
  const { pagination } = query;
  switch (pagination.style) {
    case 'cursor': {
      links.push(['first', at({ pageSize: pagination.pageSize })]);
      if (position.nextPageToken)
        links.push(['next', at({ pageSize: pagination.pageSize, pageToken: position.nextPageToken })]);
      break;
    }
    case 'page': {
      const { page, size } = pagination;
      links.push(['first', at({ page: 1, size })]);
      if (page > 1) links.push(['prev', at({ page: page - 1, size })]);
      if (page * size < (position.totalCount ?? 0)) links.push(['next', at({ page: page + 1, size })]);
      break;
    }
    case 'offset': {
      const { offset, limit } = pagination;
      links.push(['first', at({ offset: 0, limit })]);
      if (offset > 0) links.push(['prev', at({ offset: Math.max(0, offset - limit), limit })]);
      if (position.pageInfo.hasNextPage && position.count > 0)
        links.push(['next', at({ offset: offset + position.count, limit })]);
      break;
    }
    case 'keyset': {
      const { limit } = pagination;
      links.push(['first', at({ lastSeenId: 0, limit })]);
      if (position.pageInfo.hasNextPage && position.lastId !== undefined)
        links.push(['next', at({ lastSeenId: position.lastId, limit })]);
      break;
    }
  }
  return links.map(([rel, target]) => `<${target}>; rel="${rel}"`).join(', ');
}
