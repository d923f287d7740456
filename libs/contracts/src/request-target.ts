/**
 * A request target's path and query (RFC 9112 §3.2: origin-form): the query is everything after the first `?`, so a
 * value holding another `?` (a filter, a GraphQL document sent by GET) stays whole (RFC 3986 §3.4).
 */
export function requestTarget(url: string): { path: string; query: string } {
  const mark = url.indexOf('?');
  return mark < 0 ? { path: url, query: '' } : { path: url.slice(0, mark), query: url.slice(mark + 1) };
}
