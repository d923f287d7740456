/**
 * A webhook owner's account as the worker reads it at each try, against the stack's users subgraph and Redis: asked
 * once and then answered from memory while the account is unchanged (one `_accountStatus` call for many tries, not
 * one per try), and still exact: a deactivation and an activation are seen by the very next try, on
 * this worker as on any other, because each bumps the account's generation before it answers.
 */
import { credentialChecks } from '@platform/metrics';
import { RedisGenerations } from '@platform/read-cache';
import { createLogger } from '@platform/logging';
import { http, testStack, unique } from '@platform/testing';
import { usersOwnerRights, type OwnerRights } from './owner-rights';

const stack = testStack();
const logger = createLogger('owner-rights-test', 'silent');

const checks = async (): Promise<Record<string, number>> => {
  const metric = await credentialChecks.get();
  const counts: Record<string, number> = {};
  for (const value of metric.values)
    if (value.labels['check'] === 'webhook_owner') counts[String(value.labels['result'])] = value.value;
  return counts;
};
const delta = (before: Record<string, number>, after: Record<string, number>, result: string) =>
  (after[result] ?? 0) - (before[result] ?? 0);

/** A worker's owner rights, once its connection to Redis is up (a check made before that keeps nothing). */
const rights = async (ttlMs?: number): Promise<OwnerRights> => {
  const generations = new RedisGenerations({
    redisUrl: stack.redisUrl,
    commandTimeoutMs: 500,
    logger,
    purpose: 'test',
    fallback: 'ask',
  });
  for (let waited = 0; !generations.settled; waited += 20) {
    if (waited > 5_000) {
      await generations.close();
      throw new Error('Redis not ready');
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return usersOwnerRights({
    usersUrl: `${stack.urls['users']}/graphql`,
    jwtSecret: stack.jwtSecret,
    subgraphSecret: stack.subgraphSecret,
    generations,
    ...(ttlMs === undefined ? {} : { ttlMs }),
  });
};

describe('webhook owner rights at each try', () => {
  let adminToken: string;
  let owner: { id: number };
  const opened: OwnerRights[] = [];
  const open = async (ttlMs?: number) => {
    const made = await rights(ttlMs);
    opened.push(made);
    return made;
  };

  beforeAll(async () => {
    const login = await http.post(`${stack.restUrl}/token`, {
      form: { username: 'admin', password: 'admin-password-1' },
    });
    adminToken = login.body.access_token as string;
    const username = `owner${unique()}`;
    const made = await http.post(`${stack.restUrl}/users/`, {
      json: { username, email: `${username}@example.com`, password: `pw-${unique()}-9` },
    });
    expect(made.status).toBe(201);
    owner = { id: made.body.id as number };
  });

  afterAll(async () => {
    for (const made of opened) await made.close();
  });

  it('when one owner is checked at several tries and nothing changed, then the users subgraph is asked once', async () => {
    const owners = await open();
    const before = await checks();
    for (let i = 0; i < 5; i += 1) {
      const found = await owners.ownerOf(owner.id);
      expect(found?.reader).toMatchObject({ kind: 'user', userId: owner.id, role: 'member' });
    }
    const after = await checks();
    expect(delta(before, after, 'miss')).toBe(1);
    expect(delta(before, after, 'hit')).toBe(4);
  });

  it('when the owner is deactivated or activated, then the next check sees it at once', async () => {
    const owners = await open();
    const other = await open(); // another worker, warm too
    for (const made of [owners, other]) expect(await made.ownerOf(owner.id)).not.toBeNull();
    const warm = await checks();
    expect((await owners.ownerOf(owner.id))?.activeSince).toBeNull();
    expect((await other.ownerOf(owner.id))?.activeSince).toBeNull();
    expect(delta(warm, await checks(), 'hit')).toBe(2); // kept: what follows is seen through the kept answers

    const deactivated = await http.post(`${stack.restUrl}/users/${owner.id}/deactivate`, { token: adminToken });
    expect(deactivated.status).toBe(200);
    expect(await owners.ownerOf(owner.id)).toBeNull();
    expect(await other.ownerOf(owner.id)).toBeNull();

    const activated = await http.post(`${stack.restUrl}/users/${owner.id}/activate`, { token: adminToken });
    expect(activated.status).toBe(200);
    const back = await owners.ownerOf(owner.id);
    expect(back?.activeSince).toBeInstanceOf(Date);
    expect((await other.ownerOf(owner.id))?.activeSince?.getTime()).toBe(back?.activeSince?.getTime());
  });

  it('when nothing may be kept (ttl 0), then every check asks', async () => {
    const owners = await open(0);
    const before = await checks();
    for (let i = 0; i < 3; i += 1) expect(await owners.ownerOf(owner.id)).not.toBeNull();
    const after = await checks();
    expect(delta(before, after, 'miss')).toBe(3);
    expect(delta(before, after, 'hit')).toBe(0);
  });
});
