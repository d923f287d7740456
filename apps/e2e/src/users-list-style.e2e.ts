/** USERS_LIST_STYLE: a deployment can pin GET /users/ to the spec's offset variant or its page variant. */
import { http } from '@platform/testing';
import { ADMIN, loginToken, startRest, stopAll } from './test/interface-support';

afterAll(() => stopAll());

describe('USERS_LIST_STYLE', () => {
  it('when the deployment pins the page variant, then GET /users/ answers envelope A by default and refuses offset parameters', async () => {
    const rest = await startRest({ USERS_LIST_STYLE: 'page' });
    const token = await loginToken(rest.url, ADMIN.username, ADMIN.password);
    const page = await http.get(`${rest.url}/users/`, { token });
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ items: expect.any(Array), total: expect.any(Number), page: 1, size: 10 });
    expect(page.body.items.length).toBeGreaterThan(0);
    expect(page.body.items.length).toBeLessThanOrEqual(10);

    const offset = await http.get(`${rest.url}/users/?skip=0&limit=5`, { token });
    expect(offset.status).toBe(422);
    expect(offset.text).toMatch(/skip|limit/);

    // The deployment's OpenAPI document shows only the parameters it accepts.
    const openapi = await http.get(`${rest.url}/openapi.json`);
    const names = (openapi.body.paths['/users/'].get.parameters as Array<{ name: string }>).map(
      (p) => p.name,
    );
    expect(names).toEqual(expect.arrayContaining(['page', 'size']));
    expect(names).not.toEqual(expect.arrayContaining(['skip']));
    expect(names).not.toEqual(expect.arrayContaining(['pageToken']));
  });

  it('when the deployment pins the offset variant, then GET /users/ answers an array and refuses page parameters', async () => {
    const rest = await startRest({ USERS_LIST_STYLE: 'offset' });
    const token = await loginToken(rest.url, ADMIN.username, ADMIN.password);
    const list = await http.get(`${rest.url}/users/?limit=2`, { token });
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body.length).toBeLessThanOrEqual(2);

    const paged = await http.get(`${rest.url}/users/?page=1&size=5`, { token });
    expect(paged.status).toBe(422);
    expect(paged.text).toMatch(/page|size/);
  });
});
