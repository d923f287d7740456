/**
 * What every list route (users, items, posts, comments, articles) shares: parameters, cursor secret, body shapes, the
 * response with its Link header and weak ETag, and `listRoute`, which declares a record listing from its parts.
 */
import { z } from 'zod';
import {
  LISTINGS,
  LISTING_LIMITS,
  cursorEnvelopeSchema,
  deriveCursorSecret,
  listLinks,
  listingQuerySchema,
  toConnectionVariables,
  pageEnvelopeSchema,
  parseRestListQuery,
  toRestListBody,
  type CursorSecret,
  type ListingSpec,
  type ListQuery,
  type PageInfo,
} from '@platform/listing';
import type { KeyRing } from '@platform/auth';
import type { Request } from 'express';
import { representation, restSchemas, type Represented, type Resource } from '@platform/contracts';
import type { RestEnvironment } from '../environment';
import { defineRoute, type RouteDefinition, type RouteResult } from '../http/route';
import { bodyTag } from '../http/conditional';
import type { Operation } from '../gateway/gateway-client';
import { checkLimits, readRecordSchema, readSelection, selectionParameters } from './read-selection';

/**
 * Parameters a list route accepts besides listing ones: the version selector, an API key in the query, and the
 * selection (`expand`, `fields`: read-selection.ts).
 */
const RESERVED = ['version', 'api_key', 'expand', 'fields'];

/** Derived once per key ring (a process resolves its ring once at start). */
const secrets = new WeakMap<KeyRing, CursorSecret>();
const cursorSecretOf = (jwtSecret: KeyRing): CursorSecret => {
  let secret = secrets.get(jwtSecret);
  if (!secret) {
    secret = deriveCursorSecret(jwtSecret);
    secrets.set(jwtSecret, secret);
  }
  return secret;
};

export interface ListQueryOptions {
  /** Pins one pagination style (USERS_LIST_STYLE). */
  forcedStyle?: 'offset' | 'page';
  /** The parent of a nested listing (parentScope), e.g. the post whose comments are listed. */
  cursorScope?: string;
}

/**
 * Parses a list route's query string. It reads the query as express parsed it (an object without a prototype), not
 * the output of the route's zod schema: zod copies keys by assignment, so `__proto__` would vanish there instead of
 * being refused like every other unknown parameter.
 */
export const listQueryOf = (
  rawQuery: unknown,
  spec: ListingSpec,
  env: RestEnvironment,
  options: ListQueryOptions = {},
): ListQuery =>
  parseRestListQuery(rawQuery as Record<string, unknown>, spec, {
    reserved: RESERVED,
    cursorSecret: cursorSecretOf(env.jwtSecret),
    ...options,
  });

export const listParameters = (spec: ListingSpec) => listingQuerySchema(spec);

/**
 * The three bodies a list route answers: an array (offset, keyset, no parameters), envelope A or envelope B. `name`
 * names the envelopes (`ItemCursorEnvelope`) when the record schema has no id of its own (a plain or selected record).
 */
export const listBodyVariants = <T extends z.ZodType>(record: T, name?: string) =>
  [
    z.array(record).max(LISTING_LIMITS.limit.max),
    pageEnvelopeSchema(record, name),
    cursorEnvelopeSchema(record, name),
  ] as const;

/** 200 body of a list route: an array (offset, keyset, no parameters), envelope A (page/size) or envelope B (cursor). */
export const listBodySchema = <T extends z.ZodType>(record: T, name?: string) => z.union(listBodyVariants(record, name));

export const LIST_STYLES_TEXT =
  'The pagination style follows from the parameters: `pageSize`/`pageToken` (or `cursor`) -> envelope B; `page`/`size` -> ' +
  'envelope A; `lastSeenId`/`limit` or `offset`/`skip`/`limit` or none -> a JSON array. `sort` is repeatable (`-` for descending); ' +
  'ties are broken by `id`.';

/**
 * A list route's 200: the body in the requested style, the RFC 8288 `Link` header (first, prev, next) consistent with
 * the body's tokens, and a weak ETag of the body (If-None-Match -> 304 in the router).
 */
export function listResponse<N, R extends { id: number }>(
  request: Request,
  apiVersion: number | undefined,
  listQuery: ListQuery,
  connection: { nodes: N[]; pageInfo: PageInfo; totalCount?: number | null },
  toRest: (node: N) => R,
): RouteResult {
  const body = toRestListBody(listQuery, connection, toRest);
  const records = Array.isArray(body) ? body : 'items' in body ? body.items : body.data;
  const link = listLinks(request.originalUrl, listQuery, {
    pageInfo: connection.pageInfo,
    totalCount: connection.totalCount ?? null,
    count: records.length,
    lastId: records.at(-1)?.id,
    nextPageToken: 'pagination' in body ? body.pagination.nextPageToken : null,
  });
  return { status: 200, body, headers: { link, etag: bodyTag(body, true, apiVersion) } };
}

type Listed<N> = { nodes: N[]; pageInfo: PageInfo; totalCount?: number | null };

/** The filters a listing takes, as its description ends (`Filters: \`name\`, \`price\`, ...`). */
export function filtersText(listing: ListingSpec): string {
  const names = listing.fields.filter((field) => field.path !== '_id').map((field) => `\`${field.rest}\``);
  if (names.length === 1) return `Filter: ${names[0]} (also \`${names[0]!.slice(1, -1)}[eq|lt|gt|in]\`).`;
  return `Filters: ${names.join(', ')}, each also as \`field[eq|lt|gt|in]\`.`;
}

export interface ListRouteSpec<D, N, P extends z.ZodType> {
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** The records listed: their listing (filters, sort), read scope, representation. */
  resource: Resource & { name: ListingSpec['resource'] };
  /** What the description says between the access rule and the styles (e.g. when the listing is 404). */
  about?: string;
  /** The filters, as the description ends, where the path changes them (a user's articles); else the listing's. */
  filters?: string;
  /** `Items`: the 200 description's subject. */
  plural: string;
  /** Only when the parameters differ from the listing's own (a user's articles: no `author_id`). */
  query?: z.ZodObject;
  params?: P;
  operation: Operation<D>;
  /** Variables besides the listing's (the parent's id). */
  variables?: (params: z.infer<P>) => Record<string, number>;
  /** The parent whose records these are (parentScope): cursors of another parent's listing are refused. */
  cursorScope?: (params: z.infer<P>) => string;
  /** The query as the listing parses it, when the path adds to it (a user's articles: `author_id`). */
  rawQuery?: (query: unknown, params: z.infer<P>) => unknown;
  /** The page in the response data; throws 404 when the parent is absent. */
  connectionOf: (data: D, params: z.infer<P>) => Listed<N>;
}

/** A GET listing of records: every pagination style, filters and sort, the Link header and a weak ETag. */
export const listRoute = <D, N extends Readonly<Record<string, unknown>>, P extends z.ZodType = z.ZodType>(
  spec: ListRouteSpec<D, N, P>,
): RouteDefinition => {
  const listing = LISTINGS[spec.resource.name];
  const scope = spec.resource.scopes?.read;
  const toPublic: (node: N) => Represented = representation(spec.resource);
  return defineRoute({
    method: 'get',
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: `Needs \`${scope}\`; an API key is accepted in place of a bearer token. ${spec.about ? `${spec.about} ` : ''}${LIST_STYLES_TEXT} ${spec.filters ?? filtersText(listing)}`,
    tags: [spec.tag],
    security: 'bearer-or-api-key',
    ...(scope ? { scope } : {}),
    ...(spec.params ? { params: spec.params } : {}),
    query: (spec.query ?? listParameters(listing)).extend(selectionParameters(spec.resource)),
    listing: true,
    responses: {
      200: {
        description: `${spec.plural}: an array by default, or an envelope`,
        schema: listBodySchema(
          readRecordSchema(spec.resource, restSchemas(spec.resource).public),
          spec.resource.rest.public.id,
        ),
      },
    },
    handler: async ({ params, request, gateway, credentials, env, version }) => {
      const path = params as z.infer<P>;
      const rawQuery = spec.rawQuery ? spec.rawQuery(request.query, path) : request.query;
      const listQuery = listQueryOf(
        rawQuery,
        listing,
        env,
        spec.cursorScope ? { cursorScope: spec.cursorScope(path) } : {},
      );
      const variables = { ...spec.variables?.(path), ...toConnectionVariables(listQuery) };
      const read = readSelection(spec.operation, spec.resource, request.query);
      if (read) checkLimits(read, variables, env);
      const data = await gateway.execute(read?.operation ?? spec.operation, variables, credentials, read?.translate);
      return listResponse(request, version, listQuery, spec.connectionOf(data, path), read?.represent ?? toPublic);
    },
  });
};
