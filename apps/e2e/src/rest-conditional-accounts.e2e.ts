/**
 * Issue 18 deliverable 2 for users and API keys over the real stack (FerretDB, gateway, subgraphs): a strong ETag from
 * each record's write counter, 304 while unchanged, If-Match on PUT/PATCH/DELETE decided atomically in the owning
 * subgraph (one winner among concurrent writers, 412 for the rest and for stale tags, nothing changed), every other
 * write moving the version too, and 428 under REQUIRE_IF_MATCH. Items are covered in rest-safe-retries.e2e.ts. ADR 0012.
 */
import { makeTempDir, type ManagedProcess } from '@platform/dev-stack';
import { http, startExtraApp, type HttpResponse } from '@platform/testing';
import { registerAccount } from './test/accounts';
import { adminToken, login, member, rest, stack, unique, type Member } from './test/resources-support';

jest.setTimeout(180_000);

const VERSION_TAG = /^"\d+\.r\d+"$/;
const versionIn = (etag: string | null) => Number(/^"(\d+)\./.exec(etag ?? '')?.[1]);

let admin: string;

beforeAll(async () => {
  admin = await adminToken();
});

/**
 * Three rounds of twenty PATCHes of `field` with one If-Match at once: each round exactly one 200 and nineteen 412, the
 * record then holds the winner's value under the winner's ETag, one version further on.
 */
async function raceRounds(url: string, token: string, field: string) {
  for (let round = 0; round < 3; round += 1) {
    const etag = (await http.get(url, { token })).headers.get('etag')!;
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        http.patch(url, {
          token,
          json: { [field]: `round ${round} writer ${i}` },
          headers: { 'if-match': etag },
        }),
      ),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([200, ...Array(19).fill(412)]);
    const winner = responses.find((r) => r.status === 200)!;
    const after = await http.get(url, { token });
    expect(after.body[field]).toBe(winner.body[field]);
    expect(after.headers.get('etag')).toBe(winner.headers.get('etag'));
    expect(versionIn(after.headers.get('etag'))).toBe(versionIn(etag) + 1);
  }
}

describe('users', () => {
  let owner: Member;
  let url: string;

  beforeEach(async () => {
    owner = await member('cond');
    url = rest(`/users/${owner.id}`);
  });

  const etagOf = async (token = owner.token) => (await http.get(url, { token })).headers.get('etag')!;

  it('when a user is unchanged, then If-None-Match gives 304; after a PATCH, 200 with the new strong ETag the PATCH returned', async () => {
    const read = await http.get(url, { token: owner.token });
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(VERSION_TAG);
    expect((await http.get(rest('/users/me'), { token: owner.token })).headers.get('etag')).toBe(etag);
    const again = await http.get(url, { token: owner.token, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');

    const patched = await http.patch(url, { token: owner.token, json: { full_name: 'Changed Once' } });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toMatch(VERSION_TAG);
    expect(patched.headers.get('etag')).not.toBe(etag);
    const changed = await http.get(url, { token: owner.token, headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.body.full_name).toBe('Changed Once');
    expect(changed.headers.get('etag')).toBe(patched.headers.get('etag'));
  });

  it('when PUT, PATCH or DELETE carries a stale If-Match, then 412 and nothing changed, the deletion cascade included', async () => {
    const stale = await etagOf();
    const item = await http.post(rest('/items/'), {
      token: owner.token,
      json: { name: `kept-${unique()}`, price: 1 },
    });
    expect(item.status).toBe(201);
    const fresh = await http.patch(url, {
      token: owner.token,
      json: { full_name: 'Winner' },
      headers: { 'if-match': stale },
    });
    expect(fresh.status).toBe(200);

    const put = await http.put(url, {
      token: owner.token,
      json: { email: `${owner.username}-lost@example.com`, full_name: 'Lost' },
      headers: { 'if-match': stale },
    });
    expect(put.status).toBe(412);
    const patch = await http.patch(url, {
      token: owner.token,
      json: { full_name: 'Lost' },
      headers: { 'if-match': stale },
    });
    expect(patch.status).toBe(412);
    const deleted = await http.delete(url, { token: owner.token, headers: { 'if-match': stale } });
    expect(deleted.status).toBe(412);

    const kept = await http.get(url, { token: owner.token });
    expect(kept.status).toBe(200);
    expect(kept.body.full_name).toBe('Winner');
    expect(kept.body.email).toBe(`${owner.username}@example.com`);
    expect(kept.headers.get('etag')).toBe(fresh.headers.get('etag'));
    // The refused DELETE took the claim before its cascade: the user's items are still there.
    expect((await http.get(rest(`/items/${item.body.id}`), { token: owner.token })).status).toBe(200);

    const gone = await http.delete(url, {
      token: owner.token,
      headers: { 'if-match': fresh.headers.get('etag')! },
    });
    expect(gone.status).toBe(204);
    expect((await http.get(rest(`/items/${item.body.id}`), { token: admin })).status).toBe(404);
  });

  it('when 20 PATCHes with the same If-Match race, then exactly one is 200 and nineteen are 412, round after round (FerretDB)', async () => {
    await raceRounds(url, owner.token, 'full_name');
  });

  it('when an admin deactivates, activates or resets the password without If-Match, then each moves the version and the older ETag meets 412', async () => {
    const before = await etagOf(admin);
    const actions = ['deactivate', 'activate'] as const;
    let previous = before;
    for (const action of actions) {
      expect((await http.post(rest(`/users/${owner.id}/${action}`), { token: admin })).status).toBe(200);
      const now = (await http.get(`${url}?include_inactive=true`, { token: admin })).headers.get('etag')!;
      expect(versionIn(now)).toBe(versionIn(previous) + 1);
      previous = now;
    }
    const reset = await http.post(rest(`/users/${owner.id}/reset-password`), {
      token: admin,
      json: { new_password: `new-pass-${unique()}-1` },
    });
    expect(reset.status).toBe(200);
    const after = await etagOf(admin);
    expect(versionIn(after)).toBe(versionIn(previous) + 1);

    const refused = await http.patch(url, {
      token: admin,
      json: { full_name: 'Too late' },
      headers: { 'if-match': before },
    });
    expect(refused.status).toBe(412);
    expect((await http.get(url, { token: admin })).body.full_name).toBeNull();
  });

  it('when 20 deactivations and activations with the same If-Match race, then exactly one runs and nineteen are 412, round after round (FerretDB)', async () => {
    for (const action of ['deactivate', 'activate', 'deactivate']) {
      const etag = (await http.get(`${url}?include_inactive=true`, { token: admin })).headers.get('etag')!;
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          http.post(rest(`/users/${owner.id}/${action}`), { token: admin, headers: { 'if-match': etag } }),
        ),
      );
      expect({ action, statuses: responses.map((r) => r.status).sort() }).toEqual({
        action,
        statuses: [200, ...Array(19).fill(412)],
      });
      const after = (await http.get(`${url}?include_inactive=true`, { token: admin })).headers.get('etag')!;
      expect(versionIn(after)).toBe(versionIn(etag) + 1);
    }
  });

  it('when an account action carries a stale If-Match or If-None-Match: *, then 412 and nothing happens; with the current tag it runs', async () => {
    const account = await registerAccount(stack.restUrl, 'condact');
    const target = rest(`/users/${account.id}`);
    const stale = (await http.get(target, { token: admin })).headers.get('etag')!;
    expect((await http.patch(target, { token: admin, json: { full_name: 'Moved On' } })).status).toBe(200);
    for (const headers of [{ 'if-match': stale }, { 'if-none-match': '*' }] as Array<
      Record<string, string>
    >) {
      const deactivate = await http.post(rest(`/users/${account.id}/deactivate`), { token: admin, headers });
      expect({ headers, status: deactivate.status }).toEqual({ headers, status: 412 });
      const reset = await http.post(rest(`/users/${account.id}/reset-password`), {
        token: admin,
        headers,
        json: { new_password: `new-pass-${unique()}-1` },
      });
      expect({ headers, status: reset.status }).toEqual({ headers, status: 412 });
    }
    // A token narrowed to `users:write` (what the route needs) resets its own password with the current tag; another
    // member sending a stale tag at this account is refused for permission first (403), not for the tag.
    const narrowed = await login(account.username, account.password, 'users:write');
    const other = await member('condother');
    const foreign = await http.post(rest(`/users/${account.id}/reset-password`), {
      token: other.token,
      headers: { 'if-match': stale },
      json: { new_password: `new-pass-${unique()}-1`, current_password: 'whatever-1' },
    });
    expect(foreign.status).toBe(403);
    // Still active, and the password is still the old one.
    expect(await login(account.username, account.password)).toEqual(expect.any(String));
    const current = (await http.get(target, { token: admin })).headers.get('etag')!;
    const newPassword = `new-pass-${unique()}-1`;
    const reset = await http.post(rest(`/users/${account.id}/reset-password`), {
      token: narrowed,
      headers: { 'if-match': current },
      json: { new_password: newPassword, current_password: account.password },
    });
    expect(reset.status).toBe(200);
    // The reset answered the account's new tag: the next conditional action goes through with it.
    const deactivated = await http.post(rest(`/users/${account.id}/deactivate`), {
      token: admin,
      headers: { 'if-match': reset.headers.get('etag')! },
    });
    expect(deactivated.status).toBe(200);
    expect(deactivated.body.is_active).toBe(false);
  });
});

describe('API keys', () => {
  let owner: Member;
  let keyUrl: string;
  let secret: string;

  beforeEach(async () => {
    owner = await member('condkey');
    const created = await http.post(rest('/api-keys'), {
      token: owner.token,
      json: { name: 'first', scopes: ['items:read'] },
    });
    expect(created.status).toBe(201);
    secret = created.body.key;
    keyUrl = rest(`/api-keys/${created.body.id}`);
  });

  const etagOf = async () => (await http.get(keyUrl, { token: owner.token })).headers.get('etag')!;
  const renameWith = (etag: string, name: string) =>
    http.patch(keyUrl, { token: owner.token, json: { name }, headers: { 'if-match': etag } });

  /** Uses the key, then reads it once the use shows: it is recorded after the response (fire and forget in auth). */
  async function useKey(): Promise<HttpResponse> {
    expect((await http.get(rest('/items/'), { headers: { 'x-api-key': secret } })).status).toBe(200);
    let shown: HttpResponse;
    do {
      await new Promise((resolve) => setTimeout(resolve, 100));
      shown = await http.get(keyUrl, { token: owner.token });
    } while (shown.body.last_used_at === null);
    return shown;
  }

  it('when a key is read, then a strong ETag and 304 while unchanged; a rename answers the new ETag; another user sees 404', async () => {
    const read = await http.get(keyUrl, { token: owner.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ name: 'first', scopes: ['items:read'], last_used_at: null });
    expect(read.body.key).toBeUndefined();
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(VERSION_TAG);
    expect((await http.get(keyUrl, { token: owner.token, headers: { 'if-none-match': etag } })).status).toBe(
      304,
    );

    const renamed = await http.patch(keyUrl, {
      token: owner.token,
      json: { name: 'second' },
      headers: { 'if-match': etag },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('second');
    expect(renamed.body.scopes).toEqual(['items:read']);
    expect(versionIn(renamed.headers.get('etag'))).toBe(versionIn(etag) + 1);
    const changed = await http.get(keyUrl, { token: owner.token, headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe(renamed.headers.get('etag'));

    const stranger = await member('condother');
    expect((await http.get(keyUrl, { token: stranger.token })).status).toBe(404);
    expect((await http.patch(keyUrl, { token: stranger.token, json: { name: 'mine' } })).status).toBe(404);
    expect(
      (await http.patch(keyUrl, { token: owner.token, json: { name: 'x', scopes: ['items:write'] } })).status,
    ).toBe(422);
  });

  it('when PATCH or DELETE carries a stale If-Match, then 412, the name stays and the key still works', async () => {
    const stale = await etagOf();
    const fresh = await renameWith(stale, 'winner');
    expect(fresh.status).toBe(200);
    expect((await renameWith(stale, 'lost')).status).toBe(412);
    expect((await http.delete(keyUrl, { token: owner.token, headers: { 'if-match': stale } })).status).toBe(
      412,
    );
    expect((await http.get(keyUrl, { token: owner.token })).body.name).toBe('winner');
    const current = (await useKey()).headers.get('etag')!;
    expect((await http.delete(keyUrl, { token: owner.token, headers: { 'if-match': current } })).status).toBe(
      204,
    );
    expect((await http.get(keyUrl, { token: owner.token })).status).toBe(404);
  });

  it('when 20 PATCHes with the same If-Match race, then exactly one is 200 and nineteen are 412 (FerretDB)', async () => {
    await raceRounds(keyUrl, owner.token, 'name');
  });

  it('when the key is used, then its recorded use is a new version: the earlier ETag meets 412', async () => {
    const before = await etagOf();
    const shown = await useKey();
    expect(versionIn(shown.headers.get('etag'))).toBe(versionIn(before) + 1);
    expect((await renameWith(before, 'late')).status).toBe(412);
  });
});

describe('REQUIRE_IF_MATCH=true', () => {
  let dir: { path: string; remove: () => void };
  let strict: { url: string; process: ManagedProcess };

  beforeAll(async () => {
    dir = makeTempDir('require-if-match-');
    strict = await startExtraApp('rest', { REQUIRE_IF_MATCH: 'true' }, dir.path);
  }, 60_000);

  afterAll(async () => {
    await strict?.process.stop();
    dir.remove();
  }, 30_000);

  it('when a user or API key write has no If-Match, then 428 and nothing changes; with the ETag it goes through', async () => {
    const account = await registerAccount(stack.restUrl, 'strict');
    const token = await login(account.username, account.password);
    const userUrl = `${strict.url}/users/${account.id}`;
    for (const write of [
      () => http.patch(userUrl, { token, json: { full_name: 'No tag' } }),
      () => http.put(userUrl, { token, json: { email: account.email, full_name: 'No tag' } }),
      () => http.delete(userUrl, { token }),
    ]) {
      const refused = await write();
      expect(refused.status).toBe(428);
    }
    const etag = (await http.get(userUrl, { token })).headers.get('etag')!;
    expect(versionIn(etag)).toBe(0);
    const tagged = await http.patch(userUrl, {
      token,
      json: { full_name: 'Tagged' },
      headers: { 'if-match': etag },
    });
    expect(tagged.status).toBe(200);

    const key = await http.post(`${strict.url}/api-keys`, {
      token,
      json: { name: 'k', scopes: ['items:read'] },
    });
    expect(key.status).toBe(201);
    const keyUrl = `${strict.url}/api-keys/${key.body.id}`;
    expect((await http.patch(keyUrl, { token, json: { name: 'No tag' } })).status).toBe(428);
    expect((await http.delete(keyUrl, { token })).status).toBe(428);
    expect((await http.get(keyUrl, { token })).body.name).toBe('k');
    const keyTag = (await http.get(keyUrl, { token })).headers.get('etag')!;
    expect((await http.delete(keyUrl, { token, headers: { 'if-match': keyTag } })).status).toBe(204);
  });
});
