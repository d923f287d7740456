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

/** Parses a list route's query string; `forcedStyle` pins one pagination style (USERS_LIST_STYLE). */
export const listQueryOf = (
  query: unknown,
  spec: ListingSpec,
  env: RestEnvironment,
  forcedStyle?: 'offset' | 'page',
): ListQuery =>
  parseRestListQuery(query as Record<string, unknown>, spec, {
    reserved: RESERVED,
    cursorSecret: cursorSecretOf(env.jwtSecret),
    ...(forcedStyle ? { forcedStyle } : {}),
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
