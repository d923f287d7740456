import { parseApiVersion, versionFromAccept, versionHeaders } from '../src/versioning/api-version';

describe('API version values', () => {
  it.each([
    ['2', 2],
    [2, 2],
    ['v2', 2],
    ['2.0', 2],
    ['2.0.0', 2],
    ['1', 1],
    ['1.0.0', 1],
  ])('when %p is named, then version %p is served', (value, expected) => {
    expect(parseApiVersion(value)).toBe(expected);
  });

  it.each(['3', '0', '2.1.0', '2.0.1', 'abc', '', '2.0.0.0', ' ', '-1', 'v'])(
    'when %p is named, then no version is served',
    (value) => {
      expect(parseApiVersion(value)).toBeUndefined();
    },
  );

  it('when Accept names application/vnd.api+json with a version, then that version is read', () => {
    expect(versionFromAccept('application/vnd.api+json;version=2')).toBe('2');
    expect(versionFromAccept('text/html, application/vnd.api+json; q=0.9; version="1"')).toBe('1');
    expect(versionFromAccept('application/json;version=2')).toBeUndefined();
    expect(versionFromAccept('application/vnd.api+json')).toBeUndefined();
    expect(versionFromAccept(undefined)).toBeUndefined();
  });

  it('when v1 is served, then Deprecation, Sunset and a Link to the migration note accompany X-API-Version', () => {
    const headers = versionHeaders(1);
    expect(headers['x-api-version']).toBe('1');
    expect(headers['deprecation']).toMatch(/^@\d+$/);
    expect(new Date(headers['sunset']!).toISOString()).toBe('2027-07-01T00:00:00.000Z');
    expect(headers['link']).toContain('</docs/api-versioning>; rel="deprecation"');
  });

  it('when v2 is served, then only X-API-Version is set', () => {
    expect(versionHeaders(2)).toEqual({ 'x-api-version': '2' });
  });
});
