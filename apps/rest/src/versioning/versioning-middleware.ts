/**
 * Resolves the API version of every request once, in the interface's precedence (path, `X-API-Version`, `Accept`,
 * `?version`, body), so routes see it as `RouteContext.version`: the `/v1` and `/v2` prefixes are stripped (the
 * same router, 404 and 405 serve prefixed and unprefixed paths), `?version` is removed before query validation, and
 * a body `{"version": 2, "data": {...}}` is unwrapped before body validation. An unknown version is a 400.
 */
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '@platform/errors';
import {
  CURRENT_VERSION,
  SUPPORTED_VERSIONS,
  VERSION_PRECEDENCE,
  parseApiVersion,
  versionFromAccept,
  versionHeaders,
  type ApiVersion,
  type VersionSource,
} from './api-version';

interface ResolvedVersion {
  /** The version the request asked for; undefined: unversioned, served the current representation. */
  version: ApiVersion | undefined;
  source: VersionSource | undefined;
}

const LOCALS_KEY = 'apiVersion';
const PATH_PREFIX = /^\/v(\d+)(?=\/|$)/;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export const apiVersionOf = (res: Response): ApiVersion | undefined =>
  (res.locals[LOCALS_KEY] as ResolvedVersion | undefined)?.version;

const unsupported = (where: string, value: string) =>
  new AppError(
    'BAD_REQUEST',
    `Unsupported API version ${JSON.stringify(value)} in ${where}; supported versions: ${SUPPORTED_VERSIONS.join(', ')}`,
  );

function setVersion(res: Response, resolved: ResolvedVersion): void {
  res.locals[LOCALS_KEY] = resolved;
  for (const name of ['deprecation', 'sunset', 'link']) res.removeHeader(name);
  res.set(versionHeaders(resolved.version ?? CURRENT_VERSION));
}

/** Splits `?a=1&version=2&b` into the `version` values and the query string without them (other bytes untouched). */
function takeVersionParams(search: string): { values: string[]; rest: string } {
  const values: string[] = [];
  const kept: string[] = [];
  for (const pair of search.split('&')) {
    if (pair === '') continue;
    const index = pair.indexOf('=');
    const rawKey = index < 0 ? pair : pair.slice(0, index);
    let key: string;
    try {
      key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
    } catch {
      key = rawKey;
    }
    if (key === 'version') {
      const rawValue = index < 0 ? '' : pair.slice(index + 1);
      try {
        values.push(decodeURIComponent(rawValue.replace(/\+/g, ' ')));
      } catch {
        values.push(rawValue);
      }
    } else {
      kept.push(pair);
    }
  }
  return { values, rest: kept.join('&') };
}

/** First middleware after the request id: path, header, Accept and query; the body waits for the body parsers. */
export function resolveApiVersion(req: Request, res: Response, next: NextFunction): void {
  // Every response says which version it is, errors included; until resolved, the current one.
  setVersion(res, { version: undefined, source: undefined });
  // Caches must key on the version inputs, not only the URL.
  res.vary('X-API-Version');
  res.vary('Accept');
  const url = req.url;
  const queryIndex = url.indexOf('?');
  let pathname = queryIndex < 0 ? url : url.slice(0, queryIndex);
  let search = queryIndex < 0 ? '' : url.slice(queryIndex + 1);
  const raw: Partial<Record<VersionSource, string>> = {};

  const prefix = PATH_PREFIX.exec(pathname);
  if (prefix) {
    raw.path = prefix[1]!;
    pathname = pathname.slice(prefix[0].length) || '/';
  }
  const header = req.headers['x-api-version'];
  if (header !== undefined) raw.header = Array.isArray(header) ? header.join(',') : header;
  const accept = versionFromAccept(req.headers.accept);
  if (accept !== undefined) raw.accept = accept;
  if (search !== '') {
    const taken = takeVersionParams(search);
    if (taken.values.length > 0) {
      const distinct = [...new Set(taken.values)];
      raw.query = distinct.length === 1 ? distinct[0]! : distinct.join(',');
      search = taken.rest;
    }
  }
  req.url = search === '' ? pathname : `${pathname}?${search}`;

  let chosen: ResolvedVersion = { version: undefined, source: undefined };
  for (const source of VERSION_PRECEDENCE) {
    const value = raw[source];
    if (value === undefined) continue;
    const version = parseApiVersion(value);
    // A version nobody serves is a client error wherever it is named, even where a higher source wins.
    if (version === undefined) return next(unsupported(describe(source), value));
    if (chosen.version === undefined) chosen = { version, source };
  }
  if (chosen.version !== undefined) setVersion(res, chosen);
  next();
}

/** After the body parsers: a POST/PUT/PATCH body `{"version": n, "data": {...}}` names the version and is unwrapped. */
export function unwrapVersionedBody(req: Request, res: Response, next: NextFunction): void {
  if (!BODY_METHODS.has(req.method) || !isVersionEnvelope(req.body)) return next();
  const value = req.body.version;
  const version = parseApiVersion(value);
  if (version === undefined) return next(unsupported(describe('body'), String(value)));
  req.body = req.body.data;
  const current = res.locals[LOCALS_KEY] as ResolvedVersion | undefined;
  if (current?.version === undefined) setVersion(res, { version, source: 'body' });
  next();
}

function isVersionEnvelope(body: unknown): body is { version: unknown; data: Record<string, unknown> } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  const data = (body as { data?: unknown }).data;
  return (
    keys.length === 2 &&
    keys.includes('version') &&
    keys.includes('data') &&
    typeof data === 'object' &&
    data !== null &&
    !Array.isArray(data)
  );
}

function describe(source: VersionSource): string {
  switch (source) {
    case 'path':
      return 'the path';
    case 'header':
      return 'X-API-Version';
    case 'accept':
      return 'Accept';
    case 'query':
      return 'the version query parameter';
    case 'body':
      return 'the request body';
  }
}
