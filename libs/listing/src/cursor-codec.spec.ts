import { createHmac } from 'node:crypto';
import { keyRing } from '@platform/auth';
import { CursorError, MAX_CURSOR_LENGTH, decodeCursor, deriveCursorSecret, encodeCursor } from './cursor-codec';

const secret = deriveCursorSecret('codec-jwt-secret');
const sign = (body: string) => createHmac('sha256', secret).update(body).digest().subarray(0, 16).toString('base64url');
const signed = (payload: unknown) => {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${sign(body)}`;
};

describe('cursor codec', () => {
  it('when the same JWT secret is given, then the same cursor key is derived; another secret gives another key', () => {
    expect(deriveCursorSecret('codec-jwt-secret').equals(secret)).toBe(true);
    expect(deriveCursorSecret('other').equals(secret)).toBe(false);
    expect(secret).toHaveLength(32);
  });

  it('when a cursor is encoded, then it decodes to the same sort values and query hash and reveals no secret', () => {
    const token = encodeCursor({ collection: 'items', values: ['lamp', 1999, null, true, 7], queryHash: 'h1' }, secret);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(decodeCursor(token, secret)).toEqual({ collection: 'items', values: ['lamp', 1999, null, true, 7], queryHash: 'h1' });
  });

  it.each([
    ['an empty token', ''],
    ['no separator', 'abc'],
    ['two separators', 'a.b.c'],
    ['a too long token', 'a'.repeat(MAX_CURSOR_LENGTH + 1)],
    ['a short MAC', `${Buffer.from('{}').toString('base64url')}.AAAA`],
    ['a signed non-JSON body', `${Buffer.from('not json').toString('base64url')}.${sign(Buffer.from('not json').toString('base64url'))}`],
    ['a signed payload of another version', signed({ v: 2, h: 'h', k: [1] })],
    ['a signed payload without values', signed({ v: 1, c: 'items', h: 'h' })],
    ['a signed payload without a collection (issued before cursors named it)', signed({ v: 1, h: 'h', k: [1] })],
    ['a signed payload with an object value', signed({ v: 1, c: 'items', h: 'h', k: [{ $gt: 1 }] })],
    ['a signed array', signed([1, 2])],
  ])('when the token is %s, then it is refused', (_label, token) => {
    expect(() => decodeCursor(token, secret)).toThrow(CursorError);
  });

  it('when any character of a valid token is changed, then it is refused', () => {
    const token = encodeCursor({ collection: 'items', values: [5], queryHash: 'abc' }, secret);
    for (let index = 0; index < token.length; index += 1) {
      if (token[index] === '.') continue;
      const changed = `${token.slice(0, index)}${token[index] === 'A' ? 'B' : 'A'}${token.slice(index + 1)}`;
      expect(() => decodeCursor(changed, secret)).toThrow(CursorError);
    }
  });

  it('when a token is checked with another key, then it is refused', () => {
    const token = encodeCursor({ collection: 'items', values: [5], queryHash: 'abc' }, secret);
    expect(() => decodeCursor(token, deriveCursorSecret('other'))).toThrow('is not a valid cursor');
  });

  it('when the JWT key rotates, then a cursor of the retiring key still reads while that key is accepted, new cursors use the new key, and the retired key is refused', () => {
    const payload = { collection: 'items', values: [5], queryHash: 'abc' };
    const before = encodeCursor(payload, deriveCursorSecret(keyRing('codec-jwt-secret')));
    const during = deriveCursorSecret(keyRing('next-jwt-secret', ['codec-jwt-secret']));
    expect(decodeCursor(before, during)).toEqual(payload);
    const after = encodeCursor(payload, during);
    expect(decodeCursor(after, deriveCursorSecret('next-jwt-secret'))).toEqual(payload);
    expect(() => decodeCursor(after, secret)).toThrow('is not a valid cursor');
    expect(() => decodeCursor(before, deriveCursorSecret(keyRing('next-jwt-secret')))).toThrow('is not a valid cursor');
  });
});
