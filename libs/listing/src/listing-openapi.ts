/**
 * zod schemas that document listings in OpenAPI: every listing and filter parameter of a collection, and the two
 * page envelopes. Requests are validated by parseRestListQuery; the query schema is deliberately permissive (all
 * optional strings, unknown keys passed through) so that it never pre-empts those errors or strips parameters.
 */
import { z } from 'zod';
import type { ListingField, ListingSpec } from './listing-specs';
import { DECIMAL_PATTERN, MAX_IN_TEXT_LENGTH, MAX_IN_VALUES, MAX_STRING_LENGTH, operatorsFor } from './listing-values';
import { MAX_CURSOR_LENGTH } from './cursor-codec';
import { LISTING_LIMITS, STYLE_PARAMETERS } from './rest-list-query';

type JsonMeta = Record<string, unknown>;

/** A query parameter that arrives as a string but is documented with its real type. */
const documented = (meta: JsonMeta & { description: string }) => z.string().optional().meta(meta);

/** One value of a field as the REST parser reads it (listing-values coerceValue), as a regular expression. */
function valuePattern(field: ListingField): string {
  switch (field.type) {
    case 'integer':
      return '-?\\d{1,15}';
    case 'number':
      return '-?\\d{1,16}(\\.\\d{1,16})?';
    case 'boolean':
      return '(true|false)';
    case 'string':
      return field.values ? `(${field.values.join('|')})` : `(?!\\$)[^,\\u0000]{0,${MAX_STRING_LENGTH}}`;
  }
}

/** An `in` list: comma-separated values of the field, at most MAX_IN_VALUES of them. */
const inListPattern = (field: ListingField): string => {
  const value = valuePattern(field);
  return `^${value}(,${value}){0,${MAX_IN_VALUES - 1}}$`;
};

/** A cursor as the server issues it: two base64url parts joined by a dot (anything else is refused unread). */
const CURSOR_PATTERN = '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$';

/** The JSON type and the bounds coerceValue enforces on one filter value. */
const jsonType = (field: ListingField): JsonMeta => {
  switch (field.type) {
    case 'integer':
      return { type: 'integer', format: 'int64', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };
    case 'number':
      // A string in plain decimal notation: typed as a JSON number, clients would send `1e-05`, which is refused.
      return { type: 'string', maxLength: 34, pattern: DECIMAL_PATTERN };
    case 'boolean':
      return { type: 'boolean' };
    case 'string':
      return field.values
        ? { type: 'string', enum: [...field.values] }
        : { type: 'string', maxLength: MAX_STRING_LENGTH, pattern: '^(?!\\$)[^\\u0000]*$' };
  }
};


const OPERATOR_TEXT: Record<string, string> = {
  eq: 'equals',
  lt: 'less than',
  gt: 'greater than',
};

function listingParameters(): Record<string, z.ZodType> {
  const { pageSize, size, page, limit, offset } = LISTING_LIMITS;
  return {
    pageSize: documented({
      type: 'integer',
      minimum: pageSize.min,
      maximum: pageSize.max,
      format: 'int32',
      description: `Cursor pagination: records per page (${pageSize.default} when omitted). Selects cursor pagination (response: envelope B).`,
    }),
    pageToken: documented({
      type: 'string',
      maxLength: MAX_CURSOR_LENGTH,
      pattern: CURSOR_PATTERN,
      description:
        'Cursor pagination: the opaque `pagination.nextPageToken` of the previous page. Valid only with the same filters and sort.',
    }),
    cursor: documented({
      type: 'string',
      maxLength: MAX_CURSOR_LENGTH,
      pattern: CURSOR_PATTERN,
      description: 'Cursor pagination: alias of `pageToken`.',
    }),
    page: documented({
      type: 'integer',
      minimum: page.min,
      maximum: page.max,
      format: 'int32',
      description: `Page pagination: 1-based page number (${page.default} when omitted). Selects page pagination (response: envelope A with \`total\`).`,
    }),
    size: documented({
      type: 'integer',
      minimum: size.min,
      maximum: size.max,
      format: 'int32',
      description: `Page pagination: records per page (${size.default} when omitted).`,
    }),
    lastSeenId: documented({
      type: 'integer',
      minimum: LISTING_LIMITS.lastSeenId.min,
      maximum: LISTING_LIMITS.lastSeenId.max,
      format: 'int64',
      description: 'Keyset pagination: return records with `id` greater than this, ordered by `id` (response: array).',
    }),
    limit: documented({
      type: 'integer',
      minimum: limit.min,
      maximum: limit.max,
      format: 'int32',
      description: `Offset or keyset pagination: maximum number of records (${limit.default} when omitted).`,
    }),
    offset: documented({
      type: 'integer',
      minimum: offset.min,
      maximum: offset.max,
      format: 'int32',
      description: 'Offset pagination: records to skip (0 when omitted; response: array).',
    }),
    skip: documented({
      type: 'integer',
      minimum: offset.min,
      maximum: offset.max,
      format: 'int32',
      description: 'Offset pagination: alias of `offset` (0 when omitted).',
    }),
  };
}

/**
 * The query parameters of a collection's list route: pagination (the style follows from which parameters are
 * present: cursor, then page, then keyset, then offset), repeatable `sort`, and `field` / `field[op]` filters.
 */
export function listingQuerySchema(spec: ListingSpec, options: { forcedStyle?: 'offset' | 'page' } = {}) {
  const all = listingParameters();
  const names = options.forcedStyle ? STYLE_PARAMETERS[options.forcedStyle] : Object.keys(all);
  const shape: Record<string, z.ZodType> = {};
  for (const name of names) shape[name] = all[name] as z.ZodType;

  const sortable = spec.fields.map((field) => field.rest);
  shape['sort'] = z
    .union([z.string(), z.array(z.string())])
    .optional()
    .meta({
      type: 'array',
      items: { type: 'string', enum: sortable.flatMap((name) => [name, `-${name}`]) },
      maxItems: sortable.length,
      anyOf: undefined,
      // A field may be named once (`sort=price&sort=-price` is refused).
      allOf: sortable.map((name) => ({ contains: { enum: [name, `-${name}`] }, minContains: 0, maxContains: 1 })),
      description: `Sort key, repeatable: \`name\` ascending, \`-name\` descending; each field at most once; ties are broken by \`id\`. Fields: ${sortable.join(', ')}.`,
    });

  for (const field of spec.fields) {
    if (field.path === '_id') continue;
    const type = jsonType(field);
    shape[field.rest] = documented({ ...type, description: `Filter: ${field.rest} equals the value.` });
    for (const op of operatorsFor(field)) {
      shape[`${field.rest}[${op}]`] =
        op === 'in'
          ? documented({
              type: 'string',
              maxLength: MAX_IN_TEXT_LENGTH,
              pattern: inListPattern(field),
              description: `Filter: ${field.rest} is one of these comma-separated values (at most ${MAX_IN_VALUES}), each ${String(type['type'])}${field.values ? ` (${field.values.join(', ')})` : ''}.`,
            })
          : documented({ ...type, description: `Filter: ${field.rest} ${OPERATOR_TEXT[op] ?? op} the value.` });
    }
  }
  return z.looseObject(shape);
}

type JsonSchema = Record<string, unknown>;

/**
 * `field[eq]` is the same filter as `field`, and the server refuses both at once: separate parameters cannot say so,
 * so the document shows `field` and names the alias in its description.
 */
function withoutEqAliases(properties: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const result: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(properties)) {
    const alias = /^(.+)\[eq\]$/.exec(name);
    if (alias && properties[alias[1]!] !== undefined) continue;
    const eq = properties[`${name}[eq]`];
    result[name] =
      eq === undefined
        ? schema
        : { ...schema, description: `${String(schema['description'] ?? '')} Also accepted as \`${name}[eq]\` (not both).`.trim() };
  }
  return result;
}

/** The name of the one query parameter that stands for the pagination parameters and `sort` when they exclude each other. */
export const LISTING_PARAMETER = 'listing';

/**
 * The OpenAPI view of a list route's pagination parameters and `sort` (their JSON Schemas by name), for generators and
 * fuzzers to honour what the server enforces: the styles exclude each other (`page` with `pageSize` is refused), so do
 * the aliases `offset`/`skip`, and keyset pagination is ordered by `id` only. When the given parameters can be
 * combined freely (a deployment pinned to page/size), they stay separate parameters (`combined` undefined); otherwise
 * `combined` is one exploded object (`style: form, explode: true`: its properties are the query parameters) whose
 * `oneOf` branches are the styles, and `separate` keeps only the filters.
 */
export function listingParameterGroups(properties: Record<string, JsonSchema>): {
  separate: Record<string, JsonSchema>;
  combined: JsonSchema | undefined;
} {
  properties = withoutEqAliases(properties);
  const listingNames = new Set<string>([...Object.values(STYLE_PARAMETERS).flat(), 'sort']);
  const present = (names: readonly string[]) => names.filter((name) => properties[name] !== undefined);
  const styles = (Object.keys(STYLE_PARAMETERS) as Array<keyof typeof STYLE_PARAMETERS>).filter(
    (style) => present(STYLE_PARAMETERS[style]).length > 0,
  );
  const aliases = present(['offset', 'skip']).length === 2;
  if (styles.length <= 1 && !aliases) return { separate: properties, combined: undefined };

  const sort = properties['sort'];
  const branch = (title: string, names: readonly string[], required: readonly string[][], sortSchema = sort): JsonSchema => {
    const own = Object.fromEntries(present(names).map((name) => [name, properties[name]!]));
    return {
      title,
      type: 'object',
      properties: { ...own, ...(sortSchema ? { sort: sortSchema } : {}) },
      additionalProperties: false,
      ...(required.length === 1 ? { required: required[0] } : {}),
      ...(required.length > 1 ? { anyOf: required.map((names) => ({ required: names })) } : {}),
    };
  };
  const several = styles.length > 1;
  const branches: JsonSchema[] = [];
  for (const style of styles) {
    switch (style) {
      case 'cursor': {
        // `cursor` is an alias of `pageToken` (described there); the branch names the spec's pair.
        const names = present(['pageSize', 'pageToken']);
        branches.push(branch('Cursor pagination (envelope B)', names, names.map((name) => [name])));
        break;
      }
      case 'page': {
        const names = present(['page', 'size']);
        branches.push(branch('Page pagination (envelope A)', names, several ? names.map((name) => [name]) : []));
        break;
      }
      case 'keyset': {
        const byId = sort ? { ...sort, items: { type: 'string', enum: ['id'] }, maxItems: 1, allOf: undefined } : undefined;
        branches.push(branch('Keyset pagination (array, ordered by id)', ['lastSeenId', 'limit'], [['lastSeenId']], byId));
        break;
      }
      case 'offset': {
        branches.push(branch('Offset pagination (array)', ['offset', 'limit'], []));
        if (aliases) branches.push(branch('Offset pagination with `skip` (array)', ['skip', 'limit'], [['skip']]));
        break;
      }
    }
  }
  const separate = Object.fromEntries(Object.entries(properties).filter(([name]) => !listingNames.has(name)));
  return {
    separate,
    combined: {
      description:
        'Pagination and sort. The styles exclude each other: cursor (`pageSize`, `pageToken` or its alias `cursor`), page ' +
        '(`page`, `size`), keyset (`lastSeenId`, `limit`; ordered by `id`), offset (`offset` or its alias `skip`, `limit`); ' +
        'none of them means offset from 0. Each property is a query parameter of its own.',
      oneOf: branches.map((schema) => JSON.parse(JSON.stringify(schema)) as JsonSchema),
    },
  };
}

const envelopes = new Map<string, z.ZodType>();

const idOf = (item: z.ZodType, fallback: string | undefined, suffix: string): string => {
  const itemId = fallback ?? z.globalRegistry.get(item)?.id;
  return `${itemId ?? 'Record'}${suffix}`;
};

/**
 * Envelope variant A `{ items, total, page, size }` for page/size listings, registered once per item type as the
 * component `<ItemId>PageEnvelope` (pass `name` when the item schema has no meta id).
 */
export function pageEnvelopeSchema<T extends z.ZodType>(item: T, name?: string) {
  const id = idOf(item, name, 'PageEnvelope');
  const existing = envelopes.get(id);
  if (existing) return existing as z.ZodObject<{ items: z.ZodArray<T>; total: z.ZodNumber; page: z.ZodNumber; size: z.ZodNumber }>;
  const { page, size } = LISTING_LIMITS;
  const schema = z
    .object({
      items: z.array(item).max(size.max),
      total: z.number().int().min(0).meta({ description: 'Number of records matching the filters' }),
      page: z.number().int().min(page.min).max(page.max),
      size: z.number().int().min(size.min).max(size.max),
    })
    .meta({ id, description: 'Page envelope, variant A (page/size listing)' });
  envelopes.set(id, schema);
  return schema;
}

/**
 * Envelope variant B `{ data, pagination: { nextPageToken, totalCount, pageSize } }` for cursor listings, registered
 * once per item type as the component `<ItemId>CursorEnvelope`.
 */
export function cursorEnvelopeSchema<T extends z.ZodType>(item: T, name?: string) {
  const id = idOf(item, name, 'CursorEnvelope');
  const existing = envelopes.get(id);
  const { pageSize } = LISTING_LIMITS;
  const shape = {
    data: z.array(item).max(pageSize.max),
    pagination: z.object({
      nextPageToken: z
        .string()
        .max(MAX_CURSOR_LENGTH)
        .regex(new RegExp(CURSOR_PATTERN))
        .nullable()
        .meta({ description: 'Token of the next page; null when there are no further results' }),
      totalCount: z.number().int().min(0).meta({ description: 'Number of records matching the filters; 0 when empty' }),
      pageSize: z.number().int().min(pageSize.min).max(pageSize.max),
    }),
  };
  if (existing) return existing as z.ZodObject<typeof shape>;
  const schema = z.object(shape).meta({ id, description: 'Page envelope, variant B (cursor listing)' });
  envelopes.set(id, schema);
  return schema;
}
