/**
 * The item: name 1..200 characters (not blank), description at most 5,000 characters or null, price 0..1,000,000,000
 * with at most 2 decimal places (stored as integer cents, returned as a JSON number), an optional category 1..50
 * characters (filterable and sortable), owned by a user.
 */
import { z } from 'zod';
import { nonBlankText, text as textRule } from '../text';
import { ENTITY_ID_MAX } from '../entity-id';
import { datetime, decimal, id, reference, resource, text, version } from './resource';

export const ITEM_NAME_MAX = 200;
export const ITEM_DESCRIPTION_MAX = 5_000;
export const ITEM_PRICE_MAX = 1_000_000_000;
export const ITEM_CATEGORY_MAX = 50;

/** True when a price has at most two decimal places (0.1 + 0.2 style float noise tolerated). */
export const hasAtMostTwoDecimals = (value: number): boolean =>
  Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;

/** Currency units -> integer cents, exact for every value that passed `hasAtMostTwoDecimals`. */
export const toCents = (price: number): number => Math.round(price * 100);
export const fromCents = (cents: number): number => cents / 100;
/** A filter value in currency units -> cents without float noise (19.99 * 100 = 1998.99... -> 1999); 10.005 -> 1000.5. */
export const unitsToCents = (units: number): number => Number((units * 100).toFixed(6));

export const items = resource({
  name: 'items',
  type: 'Item',
  subgraph: 'items',
  collection: 'items',
  plural: 'items',
  description:
    'An item. `price` is a decimal with at most 2 places (stored as integer cents, so it never drifts).\n' +
    'Reads need scope items:read; writes items:write, and a member writes only the items it owns.',
  scopes: { read: 'items:read', write: 'items:write' },
  owner: 'ownerId',
  fields: {
    id: id('The item\'s id (a positive integer, as in the REST paths).'),
    name: text({
      description: '1 to 200 characters.',
      input: nonBlankText()
        .min(1, 'must not be empty')
        .max(ITEM_NAME_MAX, `must be at most ${ITEM_NAME_MAX} characters`)
        .describe(`1 to ${ITEM_NAME_MAX} characters, not only whitespace`),
      output: z.string().max(ITEM_NAME_MAX),
      write: { create: 'required', replace: 'required', update: 'optional' },
      listed: { description: 'On the name.' },
    }),
    description: text({
      nullable: true,
      description: 'At most 5,000 characters.',
      input: textRule()
        .max(ITEM_DESCRIPTION_MAX, `must be at most ${ITEM_DESCRIPTION_MAX} characters`)
        .nullable()
        .describe(`At most ${ITEM_DESCRIPTION_MAX} characters, or null`),
      output: z.string().max(ITEM_DESCRIPTION_MAX).nullable(),
      write: {
        create: 'optional',
        replace: 'optional',
        update: 'optional',
        docs: { replace: 'Omitted: becomes null.', update: 'At most 5,000 characters; null clears it.' },
      },
    }),
    price: decimal({
      stored: 'priceCents',
      description: '0 to 1,000,000,000 with at most 2 decimal places.',
      input: z
        .number('must be a number')
        .min(0, 'must be >= 0')
        .max(ITEM_PRICE_MAX, `must be at most ${ITEM_PRICE_MAX}`)
        .refine(hasAtMostTwoDecimals, 'must have at most 2 decimal places')
        .meta({ multipleOf: 0.01 })
        .describe(`Decimal from 0 to ${ITEM_PRICE_MAX} with at most 2 decimal places`),
      output: z.number().min(0).max(ITEM_PRICE_MAX),
      write: { create: 'required', replace: 'required', update: 'optional' },
      // Filter values are given in currency units and compared as cents.
      listed: { description: 'On the price.', toStored: unitsToCents },
      toStored: toCents,
      fromStored: fromCents,
    }),
    category: text({
      nullable: true,
      // Added after clients were written: absent from REST while an item has none, so their items look the same.
      omitNull: true,
      description: 'A label to group items by: 1 to 50 characters, not only whitespace; null when the item has none.',
      input: nonBlankText()
        .min(1, 'must not be empty')
        .max(ITEM_CATEGORY_MAX, `must be at most ${ITEM_CATEGORY_MAX} characters`)
        .nullable()
        .describe(`A label to group items by: 1 to ${ITEM_CATEGORY_MAX} characters, not only whitespace, or null for none`),
      output: z
        .string()
        .max(ITEM_CATEGORY_MAX)
        .describe('The label the item is grouped by; absent when it has none'),
      write: {
        create: 'optional',
        replace: 'optional',
        update: 'optional',
        docs: {
          create: '1 to 50 characters; omitted or null: none.',
          replace: 'Omitted: becomes null (none).',
          update: '1 to 50 characters; null removes it.',
        },
      },
      listed: { description: 'On the category (an item without one is null: first in ascending order).' },
    }),
    ownerId: reference({
      nullable: true,
      description: "The owning user's id; null when the item has no owner.",
      input: z
        .number()
        .int('must be an integer')
        .min(1, 'must be >= 1')
        .max(ENTITY_ID_MAX, `must be at most ${ENTITY_ID_MAX}`)
        .nullable()
        .describe(
          'Owning user. Only an admin may set it (to any user, or null); for anyone else it must be absent or their own id (else 403).',
        ),
      write: {
        create: 'optional',
        replace: 'optional',
        update: 'optional',
        omitted: { create: 'caller', replace: 'keep' },
        adminOnly: true,
        docs: {
          create: 'Admins only: the owner (null for none). Others may omit it or give their own id; the default is the caller.',
          replace: 'Admins only; omitted: the owner stays.',
          update: 'Admins only.',
        },
      },
      listed: { description: "On the owner's id." },
      relation: {
        field: 'owner',
        target: 'User',
        description: 'The owning user (resolved by the users subgraph); null when the item has no owner.',
        inverse: {
          field: 'items',
          description: "The user's items in id order (scope items:read); first is 1..100.",
          typeDescription: "The users subgraph's User, extended with the items each user owns.",
        },
      },
    }),
    createdAt: datetime({ rest: null, graphql: false }),
    updatedAt: datetime({ rest: null, graphql: false }),
    version: version(
      'Write counter: every change adds 1 (the REST ETag); pass it as expectedVersion to change only this version.',
    ),
  },
  inputs: {
    create: 'A new item.',
    replace: 'Every field of an item (a full update).',
    update: 'The fields of an item to change (a partial update); omitted fields stay.',
  },
  rest: {
    public: {
      id: 'Item',
      description: 'An item as every response shows it.',
      example: { id: 7, name: 'Desk lamp', description: 'Brass, 40 cm', price: 24.99, owner_id: 3 },
    },
    create: {
      id: 'ItemCreate',
      description:
        'A new item. `id` is assigned by the service; the owner defaults to the caller. Unknown fields are rejected.',
      example: { name: 'Desk lamp', description: 'Brass, 40 cm', price: 24.99 },
    },
    replace: {
      id: 'ItemReplace',
      description:
        'Full update: name and price are required, an omitted description becomes null, an omitted owner_id keeps the owner.',
      example: { name: 'Desk lamp', description: null, price: 19.5 },
    },
    update: {
      id: 'ItemUpdate',
      description: 'Partial update: only the given fields change. Unknown fields (including id) are rejected.',
      example: { price: 21 },
    },
  },
});
