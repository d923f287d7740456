import { z } from 'zod';
import { AppError } from '@platform/errors';
import { ENTITY_ID_MAX, entityIdParam, isEntityId, parseEntityId } from './entity-id';

const NOT_IDS = [
  '0x10', ' 1', '1 ', '1\n', '\t1', '1e3', '01', '0', '00', '-1', '+1', '1.0', '1.5', '', 'abc', '١', '1_000',
  '1000000000000000', // 16 digits
  '9007199254740993',
];

describe('entity ids', () => {
  it.each(['1', '42', '999999999999999'])('when the id is %j, then it is accepted and parsed exactly', (raw) => {
    expect(isEntityId(raw)).toBe(true);
    expect(String(parseEntityId(raw, 'id'))).toBe(raw);
  });

  it.each(NOT_IDS)('when the id is %j, then it is refused with a validation error naming the field', (raw) => {
    expect(isEntityId(raw)).toBe(false);
    let thrown: unknown;
    try {
      parseEntityId(raw, 'item_id');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe('BAD_USER_INPUT');
    expect((thrown as AppError).details).toEqual([{ field: 'item_id', message: expect.stringContaining('integer') }]);
  });

  it('when a number arrives (GraphQL may send an ID as one), then only integers 1..ENTITY_ID_MAX are ids', () => {
    expect([1, 7, ENTITY_ID_MAX].map(isEntityId)).toEqual([true, true, true]);
    expect([0, -1, 1.5, ENTITY_ID_MAX + 1, Number.NaN, Infinity, 1e21].map(isEntityId)).toEqual(Array(7).fill(false));
    expect([null, undefined, {}, ['1'], true].map(isEntityId)).toEqual(Array(5).fill(false));
  });

  it('when a path parameter schema parses an id, then it yields the number, refuses the rest, and documents an integer', () => {
    const schema = z.object({ item_id: entityIdParam('Item id') });
    expect(schema.parse({ item_id: '12' })).toEqual({ item_id: 12 });
    for (const raw of NOT_IDS) expect(schema.safeParse({ item_id: raw }).success).toBe(false);
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
      properties: Record<string, unknown>;
    };
    expect(json.properties['item_id']).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: ENTITY_ID_MAX,
      description: 'Item id',
    });
  });
});
