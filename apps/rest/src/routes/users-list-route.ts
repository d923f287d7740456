/**
 * GET /users/: every listing style of CONTRACT.md "Listings" (or the one USERS_LIST_STYLE forces), filters on
 * username, email, role and is_active, repeatable sort; items in the representation of the requested API version.
 */
import { z } from 'zod';
import { UserPublic, UserV1, UserV2 } from '@platform/contracts';
import { LISTINGS, listingQuerySchema, toConnectionVariables } from '@platform/listing';
import { defineRoute } from '../http/route';
import type { RestEnvironment } from '../environment';
import { OPERATIONS } from '../gateway/gateway-client';
import { toUserListItem } from './user-representation';
import { listBodyVariants, listQueryOf, listResponse } from './resource-listing';

const { ListUsers } = OPERATIONS;

const forcedStyleOf = (env: RestEnvironment) =>
  env.USERS_LIST_STYLE === 'auto' ? undefined : env.USERS_LIST_STYLE;

/** Unversioned paths list the full User, v2 `{id, name, email}`, v1 `{id, name}`; every style in each. */
const VERSIONED_LIST_BODIES = [UserPublic, UserV2, UserV1].flatMap((user) => listBodyVariants(user));

export const listUsersRoute = defineRoute({
  method: 'get',
  path: '/users/',
  operationId: 'listUsers',
  summary: 'List users',
  description:
    'Needs `users:read`. The pagination style follows from the parameters (cursor `pageSize`/`pageToken` -> envelope B; ' +
    '`page`/`size` -> envelope A; `lastSeenId`/`limit` or `skip`/`offset`/`limit` or none -> array), unless the deployment ' +
    'forces one with USERS_LIST_STYLE. Filters: `username`, `email`, `role`, `is_active`, each also as `field[eq|lt|gt|in]`. ' +
    'Items: the full User on unversioned paths, `{id, name}` in v1 and `{id, name, email}` in v2.',
  tags: ['users'],
  security: 'bearer-or-api-key',
  scope: 'users:read',
  query: listingQuerySchema(LISTINGS.users),
  listing: true,
  documentedQuery: (env) => listingQuerySchema(LISTINGS.users, { forcedStyle: forcedStyleOf(env) }),
  responses: {
    200: {
      description: 'Users: an array, or envelope A (page/size), or envelope B (cursor)',
      schema: z.union(VERSIONED_LIST_BODIES),
    },
  },
  handler: async ({ request, gateway, credentials, env, version }) => {
    const style = forcedStyleOf(env);
    const listQuery = listQueryOf(request.query, LISTINGS.users, env, style ? { forcedStyle: style } : {});
    const data = await gateway.execute(ListUsers, { ...toConnectionVariables(listQuery) }, credentials);
    return listResponse(request, version, listQuery, data.users, (user) => toUserListItem(user, version));
  },
});
