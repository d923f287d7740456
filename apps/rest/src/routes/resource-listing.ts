/** What every list route (users, items, posts, comments, articles) shares: parameters, cursor secret, body shapes. */
import { z } from 'zod';
import {
  LISTING_LIMITS,
  cursorEnvelopeSchema,
  deriveCursorSecret,
  listingQuerySchema,
  pageEnvelopeSchema,
  parseRestListQuery,
  type ListingSpec,
  type ListQuery,
} from '@platform/listing';
import type { RestEnvironment } from '../environment';

/** Parameters a list route accepts besides listing ones: the version selector and an API key in the query. */
const RESERVED = ['version', 'api_key'];

const secrets = new Map<string, Buffer>();
const cursorSecretOf = (jwtSecret: string): Buffer => {
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

/** The three bodies a list route answers: an array (offset, keyset, no parameters), envelope A or envelope B. */
export const listBodyVariants = <T extends z.ZodType>(record: T) =>
  [z.array(record).max(LISTING_LIMITS.limit.max), pageEnvelopeSchema(record), cursorEnvelopeSchema(record)] as const;

/** 200 body of a list route: an array (offset, keyset, no parameters), envelope A (page/size) or envelope B (cursor). */
export const listBodySchema = <T extends z.ZodType>(record: T) => z.union(listBodyVariants(record));

export const LIST_STYLES_TEXT =
  'The pagination style follows from the parameters: `pageSize`/`pageToken` (or `cursor`) -> envelope B; `page`/`size` -> ' +
  'envelope A; `lastSeenId`/`limit` or `offset`/`skip`/`limit` or none -> a JSON array. `sort` is repeatable (`-` for descending); ' +
  'ties are broken by `id`.';
