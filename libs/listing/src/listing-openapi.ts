/**
 * zod schemas that document listings in OpenAPI: every listing and filter parameter of a collection, and the two
 * page envelopes. Requests are validated by parseRestListQuery; the query schema is deliberately permissive (all
 * optional strings, unknown keys passed through) so that it never pre-empts those errors or strips parameters.
 */
import { z } from 'zod';
import type { ListingField, ListingSpec } from './listing-specs';
import { MAX_IN_VALUES, operatorsFor } from './listing-values';
import { LISTING_LIMITS, STYLE_PARAMETERS } from './rest-list-query';

type JsonMeta = Record<string, unknown>;

/** A query parameter that arrives as a string but is documented with its real type. */
const documented = (meta: JsonMeta & { description: string }) => z.string().optional().meta(meta);

const jsonType = (field: ListingField): JsonMeta => {
  switch (field.type) {
    case 'integer':
      return { type: 'integer' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'string':
      return field.values ? { type: 'string', enum: [...field.values] } : { type: 'string' };
  }
};

const OPERATOR_TEXT: Record<string, string> = {
  eq: 'equals',
  lt: 'less than',
  gt: 'greater than',
};

function listingParameters(): Record<string, z.ZodType> {
  const { pageSize, size, page, limit } = LISTING_LIMITS;
  return {
    pageSize: documented({
      type: 'integer',
      minimum: pageSize.min,
      maximum: pageSize.max,
      default: pageSize.default,
      description: 'Cursor pagination: records per page. Selects cursor pagination (response: envelope B).',
    }),
    pageToken: documented({
      type: 'string',
      description:
        'Cursor pagination: the opaque `pagination.nextPageToken` of the previous page. Valid only with the same filters and sort.',
    }),
    cursor: documented({ type: 'string', description: 'Cursor pagination: alias of `pageToken`.' }),
    page: documented({
      type: 'integer',
      minimum: page.min,
      default: page.default,
      description: 'Page pagination: 1-based page number. Selects page pagination (response: envelope A with `total`).',
    }),
    size: documented({
      type: 'integer',
      minimum: size.min,
      maximum: size.max,
      default: size.default,
      description: 'Page pagination: records per page.',
    }),
    lastSeenId: documented({
      type: 'integer',
      minimum: LISTING_LIMITS.lastSeenId.min,
      description: 'Keyset pagination: return records with `id` greater than this, ordered by `id` (response: array).',
    }),
    limit: documented({
      type: 'integer',
      minimum: limit.min,
      maximum: limit.max,
      default: limit.default,
      description: 'Offset or keyset pagination: maximum number of records.',
    }),
    offset: documented({
      type: 'integer',
      minimum: 0,
      default: 0,
      description: 'Offset pagination: records to skip (response: array).',
    }),
    skip: documented({ type: 'integer', minimum: 0, default: 0, description: 'Offset pagination: alias of `offset`.' }),
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
      anyOf: undefined,
      description: `Sort key, repeatable: \`name\` ascending, \`-name\` descending; ties are broken by \`id\`. Fields: ${sortable.join(', ')}.`,
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
              description: `Filter: ${field.rest} is one of these comma-separated values (at most ${MAX_IN_VALUES}), each ${String(type['type'])}${field.values ? ` (${field.values.join(', ')})` : ''}.`,
            })
          : documented({ ...type, description: `Filter: ${field.rest} ${OPERATOR_TEXT[op] ?? op} the value.` });
    }
  }
  return z.looseObject(shape);
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
  const schema = z
    .object({
      items: z.array(item),
      total: z.number().int().min(0).meta({ description: 'Number of records matching the filters' }),
      page: z.number().int().min(1),
      size: z.number().int().min(1),
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
  const shape = {
    data: z.array(item),
    pagination: z.object({
      nextPageToken: z.string().nullable().meta({ description: 'Token of the next page; null when there are no further results' }),
      totalCount: z.number().int().min(0).meta({ description: 'Number of records matching the filters; 0 when empty' }),
      pageSize: z.number().int().min(1),
    }),
  };
  if (existing) return existing as z.ZodObject<typeof shape>;
  const schema = z.object(shape).meta({ id, description: 'Page envelope, variant B (cursor listing)' });
  envelopes.set(id, schema);
  return schema;
}
