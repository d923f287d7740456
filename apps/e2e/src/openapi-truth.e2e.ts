/**
 * What the OpenAPI document now promises, checked on the real stack (issue 14 findings 8 and 9): a method a literal
 * path lacks is 405 with Allow (not a route of the parameterised path refusing the literal as an id), offsets beyond
 * GraphQL's Int are a validation error naming the parameter (no GraphQL text), versions outside the documented
 * spellings are 400, the listing styles a generated client may send without arguments work, and If-Match /
 * If-None-Match are refused (400) exactly when the document's schema for them says a value is not one.
 */
import Ajv2020 from 'ajv/dist/2020';
import { http } from '@platform/testing';
import { member, rest } from './test/resources-support';

describe('OpenAPI promises on the stack', () => {
  let token: string;
  beforeAll(async () => {
    token = (await member('truth')).token;
  });

  it.each(['put', 'patch', 'delete'] as const)(
    'when %s /users/me is sent, then 405 with Allow naming GET and HEAD',
    async (method) => {
      const response = await http[method](rest('/users/me'), { token, json: { email: 'x@example.com' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
      expect(response.body).toEqual({ detail: 'Method not allowed' });
    },
  );

  it.each([
    ['/items/?offset=2147483648', 'offset'],
    ['/items/?skip=99999999999', 'skip'],
    ['/posts?offset=2147483648&limit=1', 'offset'],
  ])('when %s is asked for, then 422 names %s and no GraphQL text leaks', async (path, field) => {
    const response = await http.get(rest(path), { token });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain(`${field}: must be an integer from 0 to 2147483647`);
    expect(response.text).not.toMatch(/Variable|Int cannot|GraphQL|\$offset/);
  });

  it('when the largest documented offset is asked for, then the list is empty, not an error', async () => {
    const response = await http.get(rest('/items/?offset=2147483647&limit=1'), { token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
  });

  it.each([
    ['query', '/items/?version=%202'],
    ['query', '/items/?version=02'],
    ['query', '/items/?version=878.1.32'],
    ['header', '/items/'],
  ])('when a version outside the documented spellings is named in the %s, then 400', async (where, path) => {
    const headers: Record<string, string> = where === 'header' ? { 'x-api-version': 'V2' } : {};
    const response = await http.get(rest(path), { token, headers });
    expect(response.status).toBe(400);
    expect(response.body.detail).toContain('Unsupported API version');
  });

  it.each(['2', 'v2', '2.0', 'v2.0.0', '1.0', 'v1'])('when version %s (a documented spelling) is named, then it is served', async (version) => {
    const response = await http.get(rest(`/items/?version=${version}&limit=1`), { token });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-api-version')).toBe(version.replace(/^v/, '').split('.')[0]);
  });

  it('when the users list is asked for without arguments in v1, then the body is the documented v1 array', async () => {
    const response = await http.get(rest('/v1/users/?limit=2'), { token });
    expect(response.status).toBe(200);
    for (const user of response.body as Array<Record<string, unknown>>) expect(Object.keys(user).sort()).toEqual(['id', 'name']);
  });
});

describe('the precondition headers are declared as the server takes them', () => {
  /** The schema OpenAPI declares for a header of an operation, compiled. */
  async function declared(path: string, method: string, header: string): Promise<(value: string) => boolean> {
    const document = (await http.get(rest('/openapi.json'))).body as {
      paths: Record<string, Record<string, { parameters: Array<{ name: string; in: string; schema: object }> }>>;
    };
    const parameter = document.paths[path]![method]!.parameters.find((p) => p.in === 'header' && p.name === header)!;
    const validate = new Ajv2020({ strict: false }).compile(parameter.schema);
    return (value) => validate(value) === true;
  }

  const tag = (inner: string) => `"${inner}"`;
  const cases: Record<'If-Match' | 'If-None-Match', Array<[string, string]>> = {
    'If-Match': [
      ['`*`', '*'],
      ['a strong tag', tag('1.r2')],
      ['a weak tag', `W/${tag('1.r2')}`],
      ['a tag of 80 characters', tag('a'.repeat(78))],
      ['a tag of 81 characters', tag('a'.repeat(79))],
      ['not a tag', '0'],
      ['two tags', `${tag('a')}, ${tag('b')}`],
      ['an unterminated tag', '"a'],
      ['a tag with a space', tag('a b')],
    ],
    'If-None-Match': [
      ['`*`', '*'],
      ['one tag', tag('x')],
      ['a weak and a strong tag', `W/${tag('x')}, ${tag('y')}`],
      ['tags without spaces', `${tag('x')},W/${tag('y')}`],
      ['not a tag', 'garbage'],
      ['tags without a comma', `${tag('x')} ${tag('y')}`],
      ['a list over 1024 characters', Array.from({ length: 120 }, (_, i) => tag(`tag${i}`)).join(', ')],
    ],
  };

  let token: string;
  let itemPath: string;
  beforeAll(async () => {
    token = (await member('preconditions')).token;
    const created = await http.post(rest('/items/'), { token, json: { name: 'precondition forms', price: 1 } });
    itemPath = `/items/${created.body.id}`;
  });

  it.each(cases['If-Match'])('when If-Match is %s on a write, then it is refused with 400 exactly when the document declares it invalid', async (_label, value) => {
    const valid = (await declared('/items/{item_id}', 'patch', 'If-Match'))(value);
    const response = await http.patch(rest(itemPath), { token, headers: { 'if-match': value }, json: { price: 2 } });
    expect({ value, valid, refused: response.status === 400 }).toEqual({ value, valid, refused: !valid });
    if (valid) expect([200, 412]).toContain(response.status);
  });

  it.each(cases['If-None-Match'])('when If-None-Match is %s on a read, then it is refused with 400 exactly when the document declares it invalid', async (_label, value) => {
    const valid = (await declared('/items/{item_id}', 'get', 'If-None-Match'))(value);
    const response = await http.get(rest(itemPath), { token, headers: { 'if-none-match': value } });
    expect({ value, valid, refused: response.status === 400 }).toEqual({ value, valid, refused: !valid });
    if (valid) expect([200, 304]).toContain(response.status);
  });
});
