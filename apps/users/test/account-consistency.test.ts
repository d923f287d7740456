/**
 * Component test of the users subgraph against the real FerretDB: registration is undone when the auth side fails,
 * and a deletion whose cascade fails answers 503 and keeps the profile (so it can be retried).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Db } from 'mongodb';
import { signAccessToken } from '@platform/auth';
import { createLogger } from '@platform/logging';
import { ensureIndexes } from '@platform/mongo';
import { InternalGraphQLClient } from '@platform/service';
import { freePort } from '@platform/dev-stack';
import { http, suiteDatabases, unique } from '@platform/testing';
import { createUsersApp, type UsersApp } from '../src/app';
import { AuthCredentialStore } from '../src/data-access/auth-credential-store';
import { USERS_COLLECTION, userIndexes } from '../src/data-access/user-repository';
import type { AccountPurger, CredentialStore } from '../src/domain/user-service';

const JWT_SECRET = 'component-test-secret-with-enough-bytes-0123456789';

interface Running {
  app: UsersApp;
  server: Server;
  url: string;
}

async function startUsers(db: Db, credentials: CredentialStore, purger: AccountPurger): Promise<Running> {
  const app = await createUsersApp({
    db,
    logger: createLogger('users-test', 'silent'),
    jwtSecret: JWT_SECRET,
    production: false,
    maxBodyBytes: 65_536,
    credentials,
    purger,
  });
  const server = createServer(app.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { app, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql` };
}

async function stopUsers(running: Running): Promise<void> {
  await new Promise<void>((resolve) => running.server.close(() => resolve()));
  await running.app.server.stop();
}

const CREATE = 'mutation ($input: CreateUserInput!) { createUser(input: $input) { id username } }';
const neverPurge: AccountPurger = { purge: () => Promise.reject(new Error('not expected in this test')) };

describe('users subgraph: consistency with the other services', () => {
  const databases = suiteDatabases();
  let db: Db;

  beforeAll(async () => {
    db = databases.fresh('test_users_');
    await ensureIndexes(db, userIndexes);
  });

  it('when the auth subgraph refuses connections, then registration answers SERVICE_UNAVAILABLE and no profile remains', async () => {
    // A port nothing listens on: the credential call fails at connect.
    const refusing = new InternalGraphQLClient(`http://127.0.0.1:${await freePort()}/graphql`, {
      caller: 'users',
      jwtSecret: JWT_SECRET,
      subgraphSecret: 'unused: nothing listens there',
      timeoutMs: 2_000,
    });
    const running = await startUsers(db, new AuthCredentialStore(refusing), neverPurge);
    try {
      const username = `comp${unique()}`;
      const response = await http.graphql(running.url, CREATE, {
        input: { username, email: `${username}@example.com`, password: 'component-pass-1' },
      });
      expect(response.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
      expect(await db.collection(USERS_COLLECTION).countDocuments({ username })).toBe(0);
    } finally {
      await stopUsers(running);
      await refusing.close();
    }
  });

  it('when the credential store throws, then the error is generic and the profile is removed again', async () => {
    let calls = 0;
    const throwing: CredentialStore = {
      createCredential: () => {
        calls += 1;
        return Promise.reject(new Error('disk full at /var/lib/auth'));
      },
    };
    const running = await startUsers(db, throwing, neverPurge);
    try {
      const username = `thr${unique()}`;
      const response = await http.graphql(running.url, CREATE, {
        input: { username, email: `${username}@example.com`, password: 'component-pass-1' },
      });
      expect(calls).toBe(1);
      expect(response.body.errors[0]).toMatchObject({ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      expect(response.text).not.toContain('disk full');
      expect(await db.collection(USERS_COLLECTION).countDocuments({ username })).toBe(0);
      // The username is free: a later registration succeeds once auth works again.
      const healthy = await startUsers(db, { createCredential: () => Promise.resolve() }, neverPurge);
      try {
        const retry = await http.graphql(healthy.url, CREATE, {
          input: { username, email: `${username}@example.com`, password: 'component-pass-1' },
        });
        expect(retry.body.data.createUser.username).toBe(username);
      } finally {
        await stopUsers(healthy);
      }
    } finally {
      await stopUsers(running);
    }
  });

  it('when many users register at once, then every one gets a distinct id', async () => {
    const running = await startUsers(db, { createCredential: () => Promise.resolve() }, neverPurge);
    try {
      const prefix = `par${unique()}`;
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          http.graphql(running.url, CREATE, { input: { username: `${prefix}${i}`, email: `${prefix}${i}@example.com`, password: 'component-pass-1' } }),
        ),
      );
      const ids = responses.map((r) => {
        expect(r.body.errors).toBeUndefined();
        return Number(r.body.data.createUser.id);
      });
      expect(new Set(ids).size).toBe(20);
    } finally {
      await stopUsers(running);
    }
  });

  it('when the cascade of a deletion fails, then SERVICE_UNAVAILABLE and the profile stays for a retry', async () => {
    let purgeWorks = false;
    const purger: AccountPurger = {
      purge: () => (purgeWorks ? Promise.resolve() : Promise.reject(new Error('items down'))),
    };
    const running = await startUsers(db, { createCredential: () => Promise.resolve() }, purger);
    try {
      const username = `del${unique()}`;
      const created = await http.graphql(running.url, CREATE, {
        input: { username, email: `${username}@example.com`, password: 'component-pass-1' },
      });
      const id = Number(created.body.data.createUser.id);
      const token = signAccessToken(
        { sub: username, uid: id, role: 'member', scopes: ['users:read', 'users:write'], kind: 'user' },
        JWT_SECRET,
        60,
      );
      const remove = 'mutation ($id: ID!) { deleteUser(id: $id) }';
      const failed = await http.graphql(running.url, remove, { id: String(id) }, { token });
      expect(failed.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
      expect(await db.collection(USERS_COLLECTION).countDocuments({ _id: id as never })).toBe(1);
      purgeWorks = true;
      const retried = await http.graphql(running.url, remove, { id: String(id) }, { token });
      expect(retried.body.data).toEqual({ deleteUser: true });
      expect(await db.collection(USERS_COLLECTION).countDocuments({ _id: id as never })).toBe(0);
    } finally {
      await stopUsers(running);
    }
  });
});
