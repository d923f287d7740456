/**
 * API versioning over the real stack: the five strategies (path, X-API-Version, Accept, ?version, body) and their
 * precedence, the representation each version lists, X-API-Version on every response, v1's Deprecation, Sunset and
 * Link (whose target is served), and unknown versions as client errors.
 */
import { http, type HttpResponse } from '@platform/testing';
import { ADMIN, loginToken, registerUser, stack, unique } from './test/interface-support';

const rest = (path: string) => `${stack.restUrl}${path}`;
let token = '';

beforeAll(async () => {
  token = await loginToken(stack.restUrl, ADMIN.username, ADMIN.password);
  await registerUser(stack.restUrl, 'ver');
}, 60_000);

const list = (path: string, headers: Record<string, string> = {}) => http.get(rest(path), { token, headers });

function expectListedAs(response: HttpResponse, version: 1 | 2): void {
  expect(response.status).toBe(200);
  expect(response.headers.get('x-api-version')).toBe(String(version));
  const users = response.body as Array<Record<string, unknown>>;
  expect(users.length).toBeGreaterThan(0);
  for (const user of users)
    expect(Object.keys(user).sort()).toEqual(version === 1 ? ['id', 'name'] : ['email', 'id', 'name']);
}

const expectDeprecated = (response: HttpResponse) => {
  expect(response.headers.get('deprecation')).toMatch(/^@\d+$/);
  expect(new Date(response.headers.get('sunset') ?? '').getTime()).toBeGreaterThan(Date.now());
  expect(response.headers.get('link')).toContain('</docs/api-versioning>; rel="deprecation"');
};
const expectNotDeprecated = (response: HttpResponse) => {
  expect(response.headers.get('deprecation')).toBeNull();
  expect(response.headers.get('sunset')).toBeNull();
};

describe('versioning strategies', () => {
  it.each([
    ['the path', '/v1/users/?limit=5', {}, 1],
    ['the path', '/v2/users/?limit=5', {}, 2],
    ['X-API-Version', '/users/?limit=5', { 'x-api-version': '1' }, 1],
    ['X-API-Version (semantic)', '/users/?limit=5', { 'x-api-version': '2.0.0' }, 2],
    ['Accept', '/users/?limit=5', { accept: 'application/vnd.api+json;version=1' }, 1],
    ['Accept', '/users/?limit=5', { accept: 'application/vnd.api+json;version=2' }, 2],
    ['the query', '/users/?limit=5&version=1', {}, 1],
    ['the query', '/users/?version=2&limit=5', {}, 2],
  ] as const)(
    'when %s names the version (%s), then that representation is listed',
    async (_how, path, headers, version) => {
      const response = await list(path, headers);
      expectListedAs(response, version);
      if (version === 1) expectDeprecated(response);
      else expectNotDeprecated(response);
    },
  );

  it('when the body names the version, then `data` is validated and the version is served', async () => {
    const name = `body${unique()}`;
    const response = await http.post(rest('/users/'), {
      json: { version: 1, data: { username: name, email: `${name}@example.com`, password: 'pass-word-1' } },
    });
    expect(response.status).toBe(201);
    expect(response.body.username ?? response.body.name).toBe(name);
    expect(response.headers.get('x-api-version')).toBe('1');
    expectDeprecated(response);

    const invalid = await http.post(rest('/users/'), { json: { version: 2, data: { username: 'ab' } } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail).toMatch(/username/);
    expect(invalid.headers.get('x-api-version')).toBe('2');
  });

  it('when no version is named, then the current representation is served as X-API-Version 2', async () => {
    const response = await list('/users/?limit=5');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-api-version')).toBe('2');
    expectNotDeprecated(response);
    for (const user of response.body as Array<Record<string, unknown>>) {
      expect(user).toMatchObject({
        id: expect.any(Number),
        username: expect.any(String),
        email: expect.any(String),
        is_active: expect.any(Boolean),
      });
    }
  });
});

describe('versioning precedence: path, header, Accept, query, body', () => {
  it('when the path and the header disagree, then the path wins', async () => {
    expectListedAs(await list('/v1/users/?limit=5', { 'x-api-version': '2' }), 1);
    expectListedAs(await list('/v2/users/?limit=5', { 'x-api-version': '1' }), 2);
  });

  it('when the header and Accept disagree, then the header wins', async () => {
    expectListedAs(
      await list('/users/?limit=5', { 'x-api-version': '1', accept: 'application/vnd.api+json;version=2' }),
      1,
    );
  });

  it('when Accept and the query disagree, then Accept wins', async () => {
    expectListedAs(
      await list('/users/?limit=5&version=1', { accept: 'application/vnd.api+json;version=2' }),
      2,
    );
  });

  it('when the query and the body disagree, then the query wins', async () => {
    const name = `prec${unique()}`;
    const response = await http.post(rest('/users/?version=2'), {
      json: { version: 1, data: { username: name, email: `${name}@example.com`, password: 'pass-word-1' } },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-api-version')).toBe('2');
  });
});

describe('v1 deprecation and unknown versions', () => {
  it('when a v1 response links its migration note, then the note is served', async () => {
    const response = await list('/v1/users/?limit=1');
    const target = /<([^>]+)>; rel="deprecation"/.exec(response.headers.get('link') ?? '')?.[1];
    expect(target).toBe('/docs/api-versioning');
    const note = await http.get(rest(target!));
    expect(note.status).toBe(200);
    expect(note.headers.get('content-type')).toContain('text/markdown');
    expect(note.text).toContain('Sunset');
  });

  it.each([
    ['the path', '/v3/users/', {}],
    ['X-API-Version', '/users/', { 'x-api-version': '3' }],
    ['X-API-Version', '/users/', { 'x-api-version': '2.1.0' }],
    ['Accept', '/users/', { accept: 'application/vnd.api+json;version=9' }],
    ['the query', '/users/?version=abc', {}],
  ] as const)('when %s names an unknown version (%s), then 400', async (_how, path, headers) => {
    const response = await list(path, headers);
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/Unsupported API version/);
    expect(response.headers.get('x-api-version')).toBe('2');
  });

  it('when the body names an unknown version, then 400', async () => {
    const response = await http.post(rest('/users/'), { json: { version: 7, data: { username: 'abc' } } });
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/Unsupported API version/);
  });

  it('when anything is answered, then X-API-Version is set (docs, errors, health of the facade aside)', async () => {
    for (const response of [
      await http.get(rest('/openapi.json')),
      await http.get(rest('/nowhere')),
      await list('/v1/nowhere'),
    ]) {
      expect(response.headers.get('x-api-version')).toMatch(/^[12]$/);
    }
  });
});
