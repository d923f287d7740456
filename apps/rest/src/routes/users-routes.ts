/**
 * The users resource: registration, reads, updates, deletion and the account actions, translated into gateway
 * operations. The facade only checks that a credential is present; the users and auth subgraphs verify it and
 * enforce scopes (users:read, users:write) and ownership (self or admin).
 */
import { z } from 'zod';
import {
  entityIdParam,
  ResetPassword as ResetPasswordBody,
  UserCreate,
  UserPublic,
  UserReplace,
  UserUpdate,
} from '@platform/contracts';
import { notFound } from '@platform/errors';
import { defineRoute } from '../http/route';
import { versionTag } from '../http/conditional';
import {
  ActivateUser,
  CreateUser,
  DeactivateUser,
  DeleteUser,
  GetMe,
  GetUser,
  ReplaceUser,
  ResetPassword,
  UpdateUser,
  type UserFieldsFragment,
} from '../operations/users-operations';
import { toUserPublic } from './user-representation';
import { listUsersRoute } from './users-list-route';

const UserIdParams = z.object({ user_id: entityIdParam('User id, an integer >= 1') });

const booleanQuery = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** A single user with its strong ETag: the version every change to the account moves (If-Match on the writes). */
const userResponse = (user: UserFieldsFragment, version: number | undefined) => ({
  status: 200,
  body: toUserPublic(user),
  headers: { etag: versionTag(user.version, version) },
});

const ownerOrAdmin =
  'Needs `users:write`; a member may act only on its own account, an admin on every account.';

export const usersRoutes = [
  defineRoute({
    method: 'post',
    path: '/users/',
    operationId: 'createUser',
    summary: 'Register a user',
    description:
      'Public registration; the new account has the role `member`. The password is never returned.',
    tags: ['users'],
    security: 'public',
    body: UserCreate,
    responses: {
      201: { description: 'The created user', schema: UserPublic },
      409: { description: 'Username or e-mail already registered' },
    },
    handler: async ({ body, gateway, credentials }) => {
      const data = await gateway.execute(CreateUser, { input: body }, credentials);
      return { status: 201, body: toUserPublic(data.createUser) };
    },
  }),
  listUsersRoute,
  // Before /users/:user_id, so that `me` is not taken for an id.
  defineRoute({
    method: 'get',
    path: '/users/me',
    operationId: 'getCurrentUser',
    summary: 'The authenticated user',
    tags: ['users'],
    security: 'bearer',
    scope: 'users:read',
    responses: {
      200: { description: 'The user the token was issued to', schema: UserPublic },
      404: { description: 'The account no longer exists' },
    },
    handler: async ({ gateway, credentials, version }) => {
      const data = await gateway.execute(GetMe, {}, credentials);
      if (!data.me) throw notFound('User', 'me');
      return userResponse(data.me, version);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/users/:user_id',
    operationId: 'getUser',
    summary: 'Retrieve a user',
    description: 'An inactive user is 404 unless `include_inactive=true`.',
    tags: ['users'],
    security: 'bearer-or-api-key',
    scope: 'users:read',
    params: UserIdParams,
    query: z.object({
      include_inactive: booleanQuery.optional().describe('Also return an inactive user (default false)'),
    }),
    responses: { 200: { description: 'The user', schema: UserPublic } },
    versioned: true,
    handler: async ({ params, query, gateway, credentials, version }) => {
      const data = await gateway.execute(
        GetUser,
        { id: String(params.user_id), includeInactive: query.include_inactive ?? false },
        credentials,
      );
      if (!data.user) throw notFound('User', params.user_id);
      return userResponse(data.user, version);
    },
  }),
  defineRoute({
    method: 'put',
    path: '/users/:user_id',
    operationId: 'replaceUser',
    summary: "Replace a user's updatable fields",
    description: `${ownerOrAdmin} \`email\` is required; an omitted \`full_name\` becomes null. Fields other than \`email\` and \`full_name\` (role, is_active, id, password, ...) are rejected with a validation error.`,
    tags: ['users'],
    security: 'bearer',
    scope: 'users:write',
    params: UserIdParams,
    body: UserReplace,
    responses: {
      200: { description: 'The updated user', schema: UserPublic },
      409: { description: 'E-mail already registered' },
    },
    versioned: true,
    handler: async ({ params, body, gateway, credentials, expectedVersion, version }) => {
      const input = { email: body.email, fullName: body.full_name ?? null };
      const data = await gateway.execute(
        ReplaceUser,
        { id: String(params.user_id), input, expectedVersion },
        credentials,
      );
      return userResponse(data.replaceUser, version);
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/users/:user_id',
    operationId: 'updateUser',
    summary: "Update some of a user's fields",
    description: `${ownerOrAdmin} Only the given fields change. Fields other than \`email\` and \`full_name\` (role, is_active, id, password, ...) are rejected with a validation error.`,
    tags: ['users'],
    security: 'bearer',
    scope: 'users:write',
    params: UserIdParams,
    body: UserUpdate,
    responses: {
      200: { description: 'The updated user', schema: UserPublic },
      409: { description: 'E-mail already registered' },
    },
    versioned: true,
    handler: async ({ params, body, gateway, credentials, expectedVersion, version }) => {
      const input: Record<string, unknown> = {};
      if (body.email !== undefined) input['email'] = body.email;
      if (body.full_name !== undefined) input['fullName'] = body.full_name;
      const data = await gateway.execute(
        UpdateUser,
        { id: String(params.user_id), input, expectedVersion },
        credentials,
      );
      return userResponse(data.updateUser, version);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/users/:user_id',
    operationId: 'deleteUser',
    summary: 'Delete a user and everything it owns',
    description: `${ownerOrAdmin} Irreversible. The user's credential, refresh tokens, API keys and items are deleted, and its posts with all their comments and likes; its comments and likes on other posts are removed too (those posts' like counts drop). If a service is unavailable the answer is 503 and a retry completes the deletion (docs/decisions/0002-user-deletion-cascades.md).`,
    tags: ['users'],
    security: 'bearer',
    scope: 'users:write',
    params: UserIdParams,
    responses: { 204: { description: 'Deleted; empty body' } },
    versioned: true,
    handler: async ({ params, gateway, credentials, expectedVersion }) => {
      await gateway.execute(DeleteUser, { id: String(params.user_id), expectedVersion }, credentials);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/users/:user_id/activate',
    operationId: 'activateUser',
    summary: 'Activate a user',
    description:
      'Sets `is_active` true. Admin only (`users:write`), so a member deactivated by an admin cannot re-activate itself.',
    tags: ['users'],
    security: 'bearer',
    scope: 'users:write',
    params: UserIdParams,
    responses: { 200: { description: 'The user, now active', schema: UserPublic } },
    handler: async ({ params, gateway, credentials }) => {
      const data = await gateway.execute(ActivateUser, { id: String(params.user_id) }, credentials);
      return { status: 200, body: toUserPublic(data.activateUser) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/users/:user_id/deactivate',
    operationId: 'deactivateUser',
    summary: 'Deactivate a user',
    description:
      'Sets `is_active` false: the user can no longer log in or refresh tokens. Admin only (`users:write`).',
    tags: ['users'],
    security: 'bearer',
    scope: 'users:write',
    params: UserIdParams,
    responses: { 200: { description: 'The user, now inactive', schema: UserPublic } },
    handler: async ({ params, gateway, credentials }) => {
      const data = await gateway.execute(DeactivateUser, { id: String(params.user_id) }, credentials);
      return { status: 200, body: toUserPublic(data.deactivateUser) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/users/:user_id/reset-password',
    operationId: 'resetUserPassword',
    summary: 'Set a new password',
    description:
      "Users reset their own password with `current_password`; an admin may reset anyone's and omit it. Every refresh token of the user is revoked (needs `users:write`).",
    tags: ['users'],
    security: 'bearer',
    scope: 'users:write',
    params: UserIdParams,
    body: ResetPasswordBody,
    responses: { 200: { description: 'The user whose password was reset', schema: UserPublic } },
    handler: async ({ params, body, gateway, credentials }) => {
      const input = {
        newPassword: body.new_password,
        ...(body.current_password !== undefined ? { currentPassword: body.current_password } : {}),
      };
      const data = await gateway.execute(ResetPassword, { id: String(params.user_id), input }, credentials);
      return { status: 200, body: toUserPublic(data.resetPassword) };
    },
  }),
];
