/**
 * The users resource: registration, the listing (every style of docs/interface.md#pagination, or the one
 * USERS_LIST_STYLE forces), reads, updates, deletion and the account actions, translated into gateway operations, and
 * the REST User representations they answer with. The facade only checks that a credential is present; the users and
 * auth subgraphs verify it and enforce scopes (users:read, users:write) and ownership (self or admin).
 */
import { z } from 'zod';
import {
  graphqlInput,
  representation,
  ResetPassword as ResetPasswordBody,
  restSchemas,
  users,
} from '@platform/contracts';
import { notFound } from '@platform/errors';
import { LISTINGS, listingQuerySchema, toConnectionVariables } from '@platform/listing';
import type { RestEnvironment } from '../environment';
import { defineRoute, type RouteDefinition, type Security } from '../http/route';
import { versionTag } from '../http/conditional';
import { OPERATIONS, type Operation } from '../gateway/gateway-client';
import type { UserFieldsFragment } from '../operations/__generated__/operations';
import {
  created,
  idParams,
  locationOf,
  recordRoutes,
  rootOf,
  selectedAnswer,
  withSelection,
  type Represented,
} from './record-routes';
import { checkLimits, readRecordSchema, readSelection, selectionParameters } from './read-selection';
import { filtersText, listBodyVariants, listQueryOf, listResponse } from './resource-listing';

const {
  ActivateUser,
  CreateUser,
  DeactivateUser,
  DeleteUser,
  GetMe,
  GetUser,
  ListUsers,
  ReplaceUser,
  ResetPassword,
  UpdateUser,
} = OPERATIONS;

const schemas = restSchemas(users);

/** GraphQL user -> the REST User (snake_case, integer id, never a password): the declaration's representation. */
export const toUserPublic = representation(users);
const listed = { 1: representation(users, 'v1'), 2: representation(users, 'v2') } as const;

/** A listed user: v1 `{id, name}`, v2 adds `email` (the declaration's views), unversioned paths the full User (docs/interface.md#versioning). */
export function toUserListItem(user: UserFieldsFragment, version: number | undefined) {
  return version === 1 || version === 2 ? listed[version](user) : toUserPublic(user);
}

const forcedStyleOf = (env: RestEnvironment) =>
  env.USERS_LIST_STYLE === 'auto' ? undefined : env.USERS_LIST_STYLE;

/** Unversioned paths list the full User, v2 `{id, name, email}`, v1 `{id, name}`; every style in each. */
const viewOf = (name: 'v1' | 'v2') => ({ name, fields: users.views![name]!.fields, meta: users.views![name]!.meta });
const VERSIONED_LIST_BODIES = [
  listBodyVariants(readRecordSchema(users, schemas.public), users.rest.public.id),
  listBodyVariants(readRecordSchema(users, schemas.views['v2']!, viewOf('v2')), viewOf('v2').meta.id),
  listBodyVariants(readRecordSchema(users, schemas.views['v1']!, viewOf('v1')), viewOf('v1').meta.id),
].flat();

const UserIdParams = idParams({ user_id: 'User' });
const USER_PATH = '/users/:user_id';

const booleanQuery = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** A single user with its strong ETag: the version every change to the account moves (If-Match on the writes). */
const userResponse = (user: UserFieldsFragment, version: number | undefined): Represented => ({
  status: 200,
  body: toUserPublic(user),
  headers: { etag: versionTag(user.version, version) },
});

const ownerOrAdmin =
  'Needs `users:write`; a member may act only on its own account, an admin on every account.';

/** One account's GET, PUT, PATCH and DELETE: the routes every record shares (record-routes.ts). */
const accounts = recordRoutes<UserFieldsFragment, typeof UserIdParams>({
  resource: users,
  tag: 'users',
  path: USER_PATH,
  params: UserIdParams,
  arguments: { user_id: 'id' },
  writeRules: ownerOrAdmin,
});
const toUserInput = graphqlInput(users);

const OWN_FIELDS_ONLY =
  'Fields other than `email` and `full_name` (role, is_active, id, password, ...) are rejected with a validation error.';

/** A route on one account (`/users/:user_id...`): tagged users, the id in the path, `users:write` unless it says. */
const accountRoute = <Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType>(
  route: Omit<RouteDefinition<typeof UserIdParams, Q, B>, 'tags' | 'params' | 'security' | 'scope'> & {
    security?: Security;
    scope?: string;
  },
): RouteDefinition =>
  defineRoute<typeof UserIdParams, Q, B>({
    tags: ['users'],
    security: 'bearer',
    scope: 'users:write',
    params: UserIdParams,
    ...route,
  });

/**
 * POST /users/:user_id/<action>: an account action answered with the user after it and its new ETag (`input` when it
 * has a body). A precondition sent (If-Match, If-None-Match: *) is the mutation's `expectedVersion`, checked in the
 * same step as the action's write to the account, after its permission checks.
 */
const accountAction = <B extends z.ZodType = z.ZodType>({
  action,
  operation,
  input,
  answered,
  ...text
}: {
  action: string;
  operationId: string;
  summary: string;
  description: string;
  body?: B;
  operation: Operation<Record<string, UserFieldsFragment>>;
  input?: (body: z.infer<B>) => Record<string, unknown>;
  answered: string;
}): RouteDefinition =>
  accountRoute<z.ZodType, B>({
    ...text,
    method: 'post',
    path: `/users/:user_id/${action}`,
    responses: { 200: { description: `${answered}, with the ETag of its new version`, schema: schemas.public } },
    versioned: true,
    handler: async ({ params, body, gateway, credentials, version, expectedVersion }) => {
      const variables = {
        id: params.user_id,
        ...(input ? { input: input(body) } : {}),
        expectedVersion,
      };
      return userResponse(rootOf(await gateway.execute(operation, variables, credentials)), version);
    },
  });

export const usersRoutes = [
  defineRoute({
    method: 'post',
    path: '/users/',
    operationId: 'createUser',
    summary: 'Register a user',
    description:
      'Public registration; the new account has the role `member`. The password is never returned. `Location` names the account.',
    tags: ['users'],
    security: 'public',
    body: schemas.create,
    createsVersioned: true,
    responses: {
      201: { description: 'The created user', schema: schemas.public },
      409: { description: 'Username or e-mail already registered' },
    },
    handler: async ({ body, gateway, credentials, version }) => {
      const input = toUserInput(body) as { username: string; email: string; password: string };
      const { createUser } = await gateway.execute(CreateUser, { input }, credentials);
      return created(userResponse(createUser, version), locationOf(version, USER_PATH, {}, createUser.id));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/users/',
    operationId: 'listUsers',
    summary: 'List users',
    description:
      'Needs `users:read`. The pagination style follows from the parameters (cursor `pageSize`/`pageToken` -> envelope B; ' +
      '`page`/`size` -> envelope A; `lastSeenId`/`limit` or `skip`/`offset`/`limit` or none -> array), unless the deployment ' +
      `forces one with USERS_LIST_STYLE. ${filtersText(LISTINGS.users)} ` +
      'Items: the full User on unversioned paths, `{id, name}` in v1 and `{id, name, email}` in v2 (where `fields` names ' +
      "those; expanded records are always whole Users, as a user's own GET shows them).",
    tags: ['users'],
    security: 'bearer-or-api-key',
    scope: 'users:read',
    query: listingQuerySchema(LISTINGS.users).extend(selectionParameters(users)),
    listing: true,
    documentedQuery: (env) =>
      listingQuerySchema(LISTINGS.users, { forcedStyle: forcedStyleOf(env) }).extend(selectionParameters(users)),
    responses: {
      200: {
        description: 'Users: an array, or envelope A (page/size), or envelope B (cursor)',
        schema: z.union(VERSIONED_LIST_BODIES),
      },
    },
    handler: async ({ request, gateway, credentials, env, version }) => {
      const style = forcedStyleOf(env);
      const listQuery = listQueryOf(request.query, LISTINGS.users, env, style ? { forcedStyle: style } : {});
      const variables = { ...toConnectionVariables(listQuery) };
      const view = version === 1 || version === 2 ? (`v${version}` as const) : undefined;
      const read = readSelection(ListUsers, users, request.query, view ? { view: viewOf(view) } : {});
      if (!read) {
        const data = await gateway.execute(ListUsers, variables, credentials);
        return listResponse(request, version, listQuery, data.users, (user) => toUserListItem(user, version));
      }
      checkLimits(read, variables, env);
      const data = await gateway.execute(read.operation, variables, credentials, read.translate);
      return listResponse(request, version, listQuery, data.users, read.represent);
    },
  }),
  // Before /users/:user_id, so that `me` is not taken for an id.
  defineRoute({
    method: 'get',
    path: '/users/me',
    operationId: 'getCurrentUser',
    summary: 'The authenticated user',
    tags: ['users'],
    security: 'bearer',
    scope: 'users:read',
    query: withSelection(users),
    responses: {
      200: { description: 'The user the token was issued to', schema: readRecordSchema(users, schemas.public) },
      404: { description: 'The account no longer exists' },
    },
    handler: async ({ request, gateway, credentials, env, version }) => {
      const read = readSelection(GetMe, users, request.query);
      if (read) checkLimits(read, {}, env);
      const data = await gateway.execute(read?.operation ?? GetMe, {}, credentials, read?.translate);
      if (!data.me) throw notFound('User', 'me');
      return read ? selectedAnswer(read, data.me, version) : userResponse(data.me, version);
    },
  }),
  accounts.get({
    operationId: 'getUser',
    summary: 'Retrieve a user',
    description: 'An inactive user is 404 unless `include_inactive=true`.',
    query: z.object({
      include_inactive: booleanQuery.optional().describe('Also return an inactive user (default false)'),
    }),
    queryArguments: { include_inactive: 'includeInactive' },
    operation: GetUser,
  }),
  accounts.write('put', {
    operationId: 'replaceUser',
    summary: "Replace a user's updatable fields",
    description: `\`email\` is required; an omitted \`full_name\` becomes null. ${OWN_FIELDS_ONLY}`,
    operation: ReplaceUser,
    conflict: 'E-mail already registered',
  }),
  accounts.write('patch', {
    operationId: 'updateUser',
    summary: "Update some of a user's fields",
    description: `Only the given fields change. ${OWN_FIELDS_ONLY}`,
    operation: UpdateUser,
    conflict: 'E-mail already registered',
  }),
  accounts.delete({
    operationId: 'deleteUser',
    summary: 'Delete a user and everything it owns',
    description:
      "Irreversible. The user's credential, refresh tokens, API keys and items are deleted, and its posts with all their comments and likes; its comments and likes on other posts are removed too (those posts' like counts drop). If a service is unavailable the answer is 503 and a retry completes the deletion (docs/decisions/0002-user-deletion-cascades.md).",
    operation: DeleteUser,
  }),
  accountAction({
    action: 'activate',
    operationId: 'activateUser',
    summary: 'Activate a user',
    description:
      'Sets `is_active` true. Admin only (`users:write`), so a member deactivated by an admin cannot re-activate itself.',
    operation: ActivateUser,
    answered: 'The user, now active',
  }),
  accountAction({
    action: 'deactivate',
    operationId: 'deactivateUser',
    summary: 'Deactivate a user',
    description:
      'Sets `is_active` false: the user can no longer log in or refresh tokens. Admin only (`users:write`).',
    operation: DeactivateUser,
    answered: 'The user, now inactive',
  }),
  accountAction({
    action: 'reset-password',
    operationId: 'resetUserPassword',
    summary: 'Set a new password',
    description:
      "Users reset their own password with `current_password`; an admin may reset anyone's and omit it. Every refresh token of the user is revoked (needs `users:write`).",
    body: ResetPasswordBody,
    operation: ResetPassword,
    input: (body) => ({
      newPassword: body.new_password,
      ...(body.current_password !== undefined ? { currentPassword: body.current_password } : {}),
    }),
    answered: 'The user whose password was reset',
  }),
];
