/**
 * ApiKeyService against the real FerretDB (own database) and the stack's real users subgraph as the owner directory:
 * storage as a digest, verification for services only, the bootstrap key, last use, and the account purge.
 */
import { ALL_SCOPES, READ_SCOPES, digestSecret, type Principal, type RequestCaller } from '@platform/auth';
import { AppError } from '@platform/errors';
import { createLogger } from '@platform/logging';
import {
  connectMongo,
  DeletionMarks,
  ensureIndexes,
  ID_CLAIMS_COLLECTION,
  trackDataAccess,
  VERSION_CLAIMS_COLLECTION,
  type MongoHandle,
} from '@platform/mongo';
import { InternalGraphQLClient } from '@platform/service';
import { unique, http, stackSubgraphSecret, testStack } from '@platform/testing';
import { ApiKeyRepository, API_KEYS_COLLECTION, apiKeyIndexes } from '../src/data-access/api-key-repository';
import { UsersAccountDirectory } from '../src/data-access/account-directory';
import { ApiKeyService } from '../src/domain/api-key-service';

const stack = testStack();
const BOOTSTRAP = 'component-bootstrap-key-0123456789';

const service: Principal = { kind: 'service', userId: null, username: 'service:gateway', role: 'admin', scopes: ['internal'] };
const as = (principal: Principal | null): RequestCaller => ({ principal, authError: null, requestId: `test-${unique()}` });

describe('ApiKeyService (component)', () => {
  let mongo: MongoHandle;
  let usersClient: InternalGraphQLClient;
  let keys: ApiKeyService;
  let owner: Principal;

  beforeAll(async () => {
    mongo = await connectMongo(stack.mongoUrl, `api_auth_keys_${unique()}`, 'api-key-test');
    await ensureIndexes(mongo.db, apiKeyIndexes);
    usersClient = new InternalGraphQLClient(`${stack.urls['users']}/graphql`, {
      caller: 'auth',
      jwtSecret: stack.jwtSecret,
      subgraphSecret: stackSubgraphSecret(stack),
    });
    keys = new ApiKeyService(new ApiKeyRepository(mongo.db), new UsersAccountDirectory(usersClient), createLogger('test', 'silent'), BOOTSTRAP, new DeletionMarks(mongo.db));
    const username = `akc${unique()}`;
    const created = await http.post(`${stack.restUrl}/users/`, { json: { username, email: `${username}@example.com`, password: 'component-pass-1' } });
    expect(created.status).toBe(201);
    owner = { kind: 'user', userId: created.body.id, username, role: 'member', scopes: [...ALL_SCOPES] };
  });

  afterAll(async () => {
    await mongo.db.dropDatabase();
    await Promise.all([mongo.close(), usersClient.close()]);
  });

  it('when a key is created, then only its SHA-256 digest and a short prefix are stored, never the key', async () => {
    const { apiKey, key } = await keys.create(as(owner), { name: 'stored', scopes: ['items:read'] });
    const raw = await mongo.db.collection(API_KEYS_COLLECTION).findOne({ _id: apiKey._id as never });
    expect(raw).toMatchObject({ userId: owner.userId, name: 'stored', scopes: ['items:read'], digest: digestSecret(key), prefix: key.slice(0, 9) });
    expect(JSON.stringify(raw)).not.toContain(key.slice(9));
    expect(apiKey).not.toHaveProperty('digest');
  });

  it('when a service verifies a key, then it gets the owner and the key scopes; a user principal is refused', async () => {
    const { apiKey, key } = await keys.create(as(owner), { name: 'verify', scopes: ['users:read', 'items:read'] });
    await expect(keys.verify(as(service), key)).resolves.toEqual({
      keyId: apiKey._id,
      userId: owner.userId,
      username: owner.username,
      role: 'member',
      scopes: ['users:read', 'items:read'],
    });
    await expect(keys.verify(as(owner), key)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(keys.verify(as(service), `${key}x`)).resolves.toBeNull();
    await expect(keys.verify(as(service), '')).resolves.toBeNull();
  });

  it('when a key is verified twice within the minute, then only the recorded use writes (bumps its generation)', async () => {
    /** The real repository, its last-use writes awaited by the test (the service does not wait for them). */
    class AwaitedTouches extends ApiKeyRepository {
      readonly touches: Array<Promise<boolean>> = [];
      override touch(id: number, now: Date, granularityMs: number): Promise<boolean> {
        const touched = super.touch(id, now, granularityMs);
        this.touches.push(touched);
        return touched;
      }
    }
    // The database as the subgraph's tracking sees it (ADR 0019): each write to a key is a bump of its generation.
    const written: string[] = [];
    const tracked = trackDataAccess(
      mongo.db,
      {
        read: () => undefined,
        wrote: (collection, ids) => {
          if (collection === API_KEYS_COLLECTION) written.push(String(ids));
        },
        opaque: () => undefined,
      },
      { bookkeeping: new Set([VERSION_CLAIMS_COLLECTION, ID_CLAIMS_COLLECTION]) },
    );
    const repository = new AwaitedTouches(tracked);
    const counting = new ApiKeyService(repository, new UsersAccountDirectory(usersClient), createLogger('test', 'silent'), BOOTSTRAP, new DeletionMarks(mongo.db));
    const { apiKey, key } = await counting.create(as(owner), { name: 'twice', scopes: ['items:read'] });
    written.length = 0;
    await counting.verify(as(service), key);
    await counting.verify(as(service), key);
    expect(await Promise.all(repository.touches)).toEqual([true, false]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual([String(apiKey._id)]);
  });

  it('when a key is verified, then its last use is recorded', async () => {
    const { apiKey, key } = await keys.create(as(owner), { name: 'used', scopes: ['items:read'] });
    expect((await keys.list(as(owner))).find((k) => k._id === apiKey._id)?.lastUsedAt).toBeNull();
    await keys.verify(as(service), key);
    let lastUsedAt: Date | null | undefined = null;
    for (let attempt = 0; attempt < 20 && !lastUsedAt; attempt += 1) {
      lastUsedAt = (await keys.list(as(owner))).find((k) => k._id === apiKey._id)?.lastUsedAt;
      if (!lastUsedAt) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(lastUsedAt).toBeInstanceOf(Date);
  });

  it('when the bootstrap key is verified, then it is a viewer with every read scope; other lengths never throw', async () => {
    await expect(keys.verify(as(service), BOOTSTRAP)).resolves.toEqual({
      keyId: null,
      userId: null,
      username: 'bootstrap-api-key',
      role: 'viewer',
      scopes: [...READ_SCOPES],
    });
    await expect(keys.verify(as(service), BOOTSTRAP.slice(0, -1))).resolves.toBeNull();
    await expect(keys.verify(as(service), `${BOOTSTRAP}0`)).resolves.toBeNull();
  });

  it('when an API-key or service principal manages keys, then it is refused; without a principal it is unauthenticated', async () => {
    const viaKey: Principal = { ...owner, kind: 'api-key' };
    await expect(keys.create(as(viaKey), { name: 'x', scopes: ['items:read'] })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(keys.list(as(service))).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(keys.list(as(null))).rejects.toEqual(new AppError('UNAUTHENTICATED', 'Not authenticated'));
  });

  it("when a user's keys are purged, then they stop verifying and other users' keys stay", async () => {
    const other: Principal = { ...owner, userId: (owner.userId as number) + 1_000_000, username: 'not-a-user' };
    const mine = await keys.create(as(owner), { name: 'purged', scopes: ['items:read'] });
    const theirs = await keys.create(as(other), { name: 'kept', scopes: ['items:read'] });
    await expect(keys.purgeUser(as(owner), owner.userId as number)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await keys.purgeUser(as(service), owner.userId as number)).toBeGreaterThanOrEqual(1);
    await expect(keys.verify(as(service), mine.key)).resolves.toBeNull();
    expect(await keys.list(as(owner))).toEqual([]);
    expect((await keys.list(as(other))).map((k) => k._id)).toEqual([theirs.apiKey._id]);
    // That owner does not exist in the users subgraph: a key of a missing account never verifies.
    await expect(keys.verify(as(service), theirs.key)).resolves.toBeNull();
  });
});
