/**
 * Item schemas: ItemCreate (POST), ItemReplace (PUT), ItemUpdate (PATCH), ItemPublic (every response).
 * Bounds: name 1..200 characters (not blank), description at most 5,000 characters or null,
 * price 0..1,000,000,000 with at most 2 decimal places (stored as integer cents, returned as a JSON number).
 */
import { z } from 'zod';
import { strictBody } from './strict-body';
import { nonBlankText, text } from './text';
import { ENTITY_ID_MAX } from './entity-id';

export const ITEM_NAME_MAX = 200;
export const ITEM_DESCRIPTION_MAX = 5_000;
export const ITEM_PRICE_MAX = 1_000_000_000;

/** True when a price has at most two decimal places (0.1 + 0.2 style float noise tolerated). */
export const hasAtMostTwoDecimals = (value: number): boolean =>
  Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;

/** Currency units -> integer cents, exact for every value that passed `hasAtMostTwoDecimals`. */
export const toCents = (price: number): number => Math.round(price * 100);
export const fromCents = (cents: number): number => cents / 100;

const name = nonBlankText()
  .min(1, 'must not be empty')
  .max(ITEM_NAME_MAX, `must be at most ${ITEM_NAME_MAX} characters`)
  .describe(`1 to ${ITEM_NAME_MAX} characters, not only whitespace`);
const description = text()
  .max(ITEM_DESCRIPTION_MAX, `must be at most ${ITEM_DESCRIPTION_MAX} characters`)
  .nullable()
  .describe(`At most ${ITEM_DESCRIPTION_MAX} characters, or null`);
const price = z
  .number('must be a number')
  .min(0, 'must be >= 0')
  .max(ITEM_PRICE_MAX, `must be at most ${ITEM_PRICE_MAX}`)
  .refine(hasAtMostTwoDecimals, 'must have at most 2 decimal places')
  .meta({ multipleOf: 0.01 })
  .describe(`Decimal from 0 to ${ITEM_PRICE_MAX} with at most 2 decimal places`);
const ownerId = z
  .number()
  .int('must be an integer')
  .min(1, 'must be >= 1')
  .max(ENTITY_ID_MAX, `must be at most ${ENTITY_ID_MAX}`)
  .nullable()
  .describe(
    'Owning user. Only an admin may set it (to any user, or null); for anyone else it must be absent or their own id (else 403).',
  );

export const ItemCreate = strictBody('ItemCreate', { name, description: description.optional(), price, owner_id: ownerId.optional() }, {
  description:
    'A new item. `id` is assigned by the service; the owner defaults to the caller. Unknown fields are rejected.',
  example: { name: 'Desk lamp', description: 'Brass, 40 cm', price: 24.99 },
});
export type ItemCreateInput = z.infer<typeof ItemCreate>;

export const ItemReplace = strictBody('ItemReplace', { name, description: description.optional(), price, owner_id: ownerId.optional() }, {
  description:
    'Full update: name and price are required, an omitted description becomes null, an omitted owner_id keeps the owner.',
  example: { name: 'Desk lamp', description: null, price: 19.5 },
});
export type ItemReplaceInput = z.infer<typeof ItemReplace>;

export const ItemUpdate = strictBody('ItemUpdate', {
  name: name.optional(),
  description: description.optional(),
  price: price.optional(),
  owner_id: ownerId.optional(),
}, {
  description: 'Partial update: only the given fields change. Unknown fields (including id) are rejected.',
  example: { price: 21 },
});
export type ItemUpdateInput = z.infer<typeof ItemUpdate>;

export const ItemPublic = z
  .object({
    id: z.number().int().min(1).max(ENTITY_ID_MAX),
    name: z.string().max(ITEM_NAME_MAX),
    description: z.string().max(ITEM_DESCRIPTION_MAX).nullable(),
    price: z.number().min(0).max(ITEM_PRICE_MAX),
    owner_id: z.number().int().min(1).max(ENTITY_ID_MAX).nullable(),
  })
  .meta({
    id: 'Item',
    description: 'An item as every response shows it.',
    example: { id: 7, name: 'Desk lamp', description: 'Brass, 40 cm', price: 24.99, owner_id: 3 },
  });
