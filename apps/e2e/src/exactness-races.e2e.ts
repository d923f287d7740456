/**
 * Exact data under concurrency, over the real stack on FerretDB v1 (which loses concurrent `$inc`s and lets two
 * concurrent updates of one document both win): like counts equal the like documents under any interleaving, nothing
 * stays attached to a post or user whose deletion raced the writes, and a unique index decides e-mail races as one
 * 200 and 409s. Racers other than the accounts under test act with signed member tokens (the posts subgraph trusts
 * the token's user id), so a hundred of them need no hundred password hashes.
 */
import { MongoClient } from 'mongodb';
import { ALL_SCOPES, signAccessToken } from '@platform/auth';
import { http, suiteApps, type ExtraApp } from '@platform/testing';
import { registerAccount } from './test/accounts';
import { member, rest, stack } from './test/resources-support';

jest.setTimeout(120_000);

const mongo = new MongoClient(stack.mongoUrl);
const postsDb = () => mongo.db('api_posts');
afterAll(() => mongo.close());

/** User ids far above any registered one, distinct per run and per test. */
let nextRacerId = 900_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1_000;
const racerToken = (uid: number) =>
  signAccessToken(
    { sub: `racer${uid}`, uid, role: 'member', scopes: [...ALL_SCOPES], kind: 'user' },
    stack.jwtSecret,
    600,
  );
/**
 * Racers are real accounts to the gateway's account check (a token of a user that does not exist is refused, ADR 0011):
 * their profiles are written straight into the users database, which is what `_accountStatus` reads.
 */
/** Racer profiles written for the running test, removed after it: integer ids are scanned for on FerretDB v1, so
 * hundreds of extra profiles would slow every other users read of the run. */
const racerProfiles: number[] = [];
afterEach(async () => {
  const ids = racerProfiles.splice(0);
  if (ids.length > 0)
    await mongo
      .db('api_users')
      .collection<{ _id: number }>('users')
      .deleteMany({ _id: { $in: ids } });
});

const racers = async (count: number) => {
  const made = Array.from({ length: count }, () => {
    nextRacerId += 1;
    return { id: nextRacerId, token: racerToken(nextRacerId) };
  });
  const now = new Date();
  racerProfiles.push(...made.map(({ id }) => id));
  await mongo
    .db('api_users')
    .collection<{ _id: number }>('users')
    .insertMany(
      made.map(({ id }) => ({
        _id: id,
        username: `racer${id}`,
        usernameFolded: `racer${id}`,
        email: `racer${id}@example.com`,
        emailFolded: `racer${id}@example.com`,
        fullName: null,
        isActive: true,
        role: 'member',
        createdAt: now,
        updatedAt: now,
      })),
    );
  return made;
};

const createPost = async (token: string) => {
  const created = await http.post(rest('/posts'), { token, json: { title: 'race', body: 'track' } });
  expect(created.status).toBe(201);
  return created.body.id as number;
};
/**
 * A like or unlike as a client sends it: a 503 (the subgraph deadline passed under this burst on a loaded machine,
 * nothing committed) is retried after its Retry-After, as the error contract tells clients to; a 504 OUTCOME_UNKNOWN
 * (sent, outcome not learned in time: ADR 0020) is repeated too, which is safe here because a like is a set
 * membership (repeating one changes nothing; a POST that creates would need its Idempotency-Key). Exactness must hold
 * whatever each attempt did. Any other answer is returned as is.
 */
const retried = async <T extends { status: number; headers: Headers }>(send: () => Promise<T>): Promise<T> => {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await send();
    if ((answer.status !== 503 && answer.status !== 504) || attempt === 5) return answer;
    const retryAfter = answer.status === 503 ? Number(answer.headers.get('retry-after')) : 1;
    expect(retryAfter).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1_000 * retryAfter));
  }
};
const like = (postId: number, token: string) =>
  retried(() => http.post(rest(`/posts/${postId}/like`), { token }));
const unlike = (postId: number, token: string) =>
  retried(() => http.delete(rest(`/posts/${postId}/like`), { token }));
const comment = (postId: number, token: string) =>
  http.post(rest(`/posts/${postId}/comments`), { token, json: { body: 'racing' } });
const likeDocuments = (filter: Record<string, unknown>) =>
  postsDb().collection('likes').countDocuments(filter);
const commentDocuments = (filter: Record<string, unknown>) =>
  postsDb().collection('comments').countDocuments(filter);
const likeCountOf = async (postId: number, token: string) => {
  const post = await http.get(rest(`/posts/${postId}`), { token });
  expect(post.status).toBe(200);
  return post.body.like_count as number;
};
const statuses = (responses: Array<{ status: number }>) =>
  responses.reduce<Record<number, number>>(
    (acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }),
    {},
  );

describe('like counts under concurrency', () => {
  it('when 100 users like one post at once and then 60 unlike while 40 more like, then like_count equals the like documents each time', async () => {
    const author = (await racers(1))[0]!;
    const postId = await createPost(author.token);
    const first = await racers(100);

    const likes = await Promise.all(first.map((user) => like(postId, user.token)));
    expect(statuses(likes)).toEqual({ 200: 100 });
    expect(await likeDocuments({ postId })).toBe(100);
    expect(await likeCountOf(postId, author.token)).toBe(100);

    const second = await racers(40);
    const mixed = await Promise.all([
      ...first.slice(0, 60).map((user) => unlike(postId, user.token)),
      ...second.map((user) => like(postId, user.token)),
      // Repeats change nothing: a second like and an unlike of a like that is not there.
      ...first.slice(60, 70).map((user) => like(postId, user.token)),
      ...(await racers(5)).map((user) => unlike(postId, user.token)),
    ]);
    expect(mixed.every((r) => r.status === 200 || r.status === 204)).toBe(true);
    expect(await likeDocuments({ postId })).toBe(80);
    expect(await likeCountOf(postId, author.token)).toBe(80);
  });

  it('when a page lists posts, then each like_count equals its like documents', async () => {
    const author = (await racers(1))[0]!;
    const postIds = [
      await createPost(author.token),
      await createPost(author.token),
      await createPost(author.token),
    ];
    const users = await racers(12);
    await Promise.all(
      users.flatMap((user, i) => postIds.slice(0, (i % 3) + 1).map((id) => like(id, user.token))),
    );
    const page = await http.get(rest(`/posts?author_id=${author.id}&sort=id`), { token: author.token });
    expect(page.status).toBe(200);
    expect(page.body.map((p: { like_count: number }) => p.like_count)).toEqual([12, 8, 4]);
    for (const [index, id] of postIds.entries()) {
      expect(await likeDocuments({ postId: id })).toBe([12, 8, 4][index]);
    }
  });
});

type Answer = { status: number; text: string };

/**
 * Writes kept in flight for as long as the deletion is under way: three lanes, each sending a round and the next when
 * it is answered (bounded load: a lane never has more than one round out), the first round sent before the DELETE, so
 * that some land in every step of the cascade; then one round after the DELETE was answered.
 */
async function raceDeletion(
  startDeletion: () => Promise<Answer>,
  round: (index: number) => Array<Promise<Answer>>,
): Promise<{ deleted: Answer; during: Answer[]; after: Answer[] }> {
  let next = 0;
  let done = false;
  const lane = async (): Promise<Answer[]> => {
    const answers: Answer[] = [];
    while (!done && next < 40) answers.push(...(await Promise.all(round(next++))));
    return answers;
  };
  const lanes = [lane()];
  const deleted = startDeletion().finally(() => {
    done = true;
  });
  lanes.push(lane(), lane());
  const during = (await Promise.all(lanes)).flat();
  return { deleted: await deleted, during, after: await Promise.all(round(40)) };
}

describe('deletions racing the writes', () => {
  it('when likes and comments race DELETE /posts/{id}, then no like or comment of the deleted post remains', async () => {
    const author = (await racers(1))[0]!;
    const postId = await createPost(author.token);
    const users = await racers(41 * 12);
    const { deleted, during, after } = await raceDeletion(
      () => http.delete(rest(`/posts/${postId}`), { token: author.token }),
      (index) =>
        users
          .slice(index * 12, index * 12 + 12)
          .map((user, i) => (i >= 10 ? comment(postId, user.token) : like(postId, user.token))),
    );

    expect(deleted.status).toBe(204);
    // At least three rounds of 10 likes and 2 comments are in flight while the deletion runs.
    expect(during.length).toBeGreaterThanOrEqual(36);
    expect(during.filter((r) => ![200, 201, 404].includes(r.status)).map((r) => r.text)).toEqual([]);
    expect(after.map((r) => r.status)).toEqual(Array(12).fill(404));
    expect(await likeDocuments({ postId })).toBe(0);
    expect(await commentDocuments({ postId })).toBe(0);
    expect((await http.get(rest(`/posts/${postId}`), { token: author.token })).status).toBe(404);
  });

  it('when a user is deleted while others like and comment on their post and they write elsewhere, then nothing of theirs remains', async () => {
    const doomed = await member('racedel');
    const ownPost = await createPost(doomed.token);
    const bystander = (await racers(1))[0]!;
    const otherPost = await createPost(bystander.token);
    const users = await racers(41 * 2);
    const { deleted, during, after } = await raceDeletion(
      () => http.delete(rest(`/users/${doomed.id}`), { token: doomed.token }),
      (index) => [
        like(ownPost, users[index * 2]!.token),
        comment(ownPost, users[index * 2 + 1]!.token),
        like(otherPost, doomed.token),
        comment(otherPost, doomed.token),
        http.post(rest('/posts'), { token: doomed.token, json: { title: 't', body: 'b' } }),
      ],
    );

    expect(deleted.status).toBe(204);
    expect(during.filter((r) => ![200, 201, 401, 404].includes(r.status)).map((r) => r.text)).toEqual([]);
    // After the deletion the account's token is refused for writes (the account is gone), and its post is gone.
    expect(after.map((r) => r.status)).toEqual([404, 404, 401, 401, 401]);
    expect(await likeDocuments({ postId: ownPost })).toBe(0);
    expect(await commentDocuments({ postId: ownPost })).toBe(0);
    expect(await likeDocuments({ userId: doomed.id })).toBe(0);
    expect(await commentDocuments({ authorId: doomed.id })).toBe(0);
    expect(await postsDb().collection('posts').countDocuments({ authorId: doomed.id })).toBe(0);
    expect(await likeCountOf(otherPost, bystander.token)).toBe(0);
  });
});

describe("an account's deletion against its own token, over two facade replicas", () => {
  const apps = suiteApps('exactness-');
  let replica: ExtraApp;
  beforeAll(async () => {
    // A second facade beside the shared one, sharing its Redis (the generations) as replicas of one deployment do.
    replica = await apps.start('rest', {
      GATEWAY_MODE: 'embedded',
      REDIS_URL: stack.redisUrl,
      RATE_LIMIT_POINTS: '100000',
    });
  }, 60_000);

  it('when a user is deleted while its token creates items and API keys through both replicas, then none survives and every request after the 204 is refused on both', async () => {
    const doomed = await member('racecreates');
    const createItem = (base: string, index: number) =>
      http.post(`${base}/items/`, { token: doomed.token, json: { name: `race ${index}`, price: 1 } });
    const createKey = (base: string, index: number) =>
      http.post(`${base}/api-keys`, { token: doomed.token, json: { name: `race ${index}`, scopes: ['items:read'] } });
    const { deleted, during, after } = await raceDeletion(
      () => http.delete(rest(`/users/${doomed.id}`), { token: doomed.token }),
      (index) => [
        createItem(stack.restUrl, index),
        createItem(replica.url, index),
        createKey(replica.url, index),
        createKey(stack.restUrl, index),
      ],
    );

    expect(deleted.status).toBe(204);
    expect(during.filter((r) => ![201, 401].includes(r.status)).map((r) => r.text)).toEqual([]);
    // The next request after the 204, on either replica: the account is gone, its token with it (no grace window).
    expect(after.map((r) => r.status)).toEqual([401, 401, 401, 401]);
    // Whatever raced the cascade either was swept or undid itself (the deletion mark, checked after each insert).
    expect(await mongo.db('api_items').collection('items').countDocuments({ ownerId: doomed.id })).toBe(0);
    expect(await mongo.db('api_auth').collection('api_keys').countDocuments({ userId: doomed.id })).toBe(0);
  });
});

describe('duplicates decided by the unique index', () => {
  it('when 20 users change their e-mail to the same new address at once, then exactly one gets 200 and nineteen 409 in the error shape (a 503 sent again after its Retry-After, as clients do), every time', async () => {
    const accounts = [];
    for (let batch = 0; batch < 5; batch += 1) {
      accounts.push(
        ...(await Promise.all(Array.from({ length: 4 }, () => registerAccount(stack.restUrl, 'mailrace')))),
      );
    }
    const tokens = accounts.map((account) =>
      signAccessToken(
        { sub: account.username, uid: account.id, role: 'member', scopes: [...ALL_SCOPES], kind: 'user' },
        stack.jwtSecret,
        600,
      ),
    );
    // Several rounds (each to a fresh address): one round may happen to serialise; together they race for real.
    for (let round = 0; round < 5; round += 1) {
      const email = `taken${round}${Date.now().toString(36)}@example.com`;
      // Each account's state is read (and cached for 2 s) by the gateway's token check first, so the race below is
      // between the twenty updates alone, not twenty status reads contending with them on FerretDB's one writer.
      await Promise.all(tokens.map((token) => http.get(rest('/users/me'), { token })));
      // As a client does: a 503 (the shared FerretDB, scanning its users under the suite's other writers, ran past the
      // deadline: nothing changed) is sent again after its Retry-After. A 503 that had committed would show here as a
      // second 200 or a missing 409.
      const answers = await Promise.all(
        accounts.map(async (account, i) => {
          for (let attempt = 0; ; attempt += 1) {
            const answer = await http.patch(rest(`/users/${account.id}`), { token: tokens[i]!, json: { email } });
            if (answer.status !== 503 || attempt === 2) return answer;
            expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
            await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after')) * 1000));
          }
        }),
      );
      expect(statuses(answers)).toEqual({ 200: 1, 409: 19 });
      for (const conflict of answers.filter((a) => a.status === 409)) {
        expect(conflict.body).toEqual({ detail: 'A user with this email already exists' });
      }
      expect(await mongo.db('api_users').collection('users').countDocuments({ email })).toBe(1);
    }
  });
});
