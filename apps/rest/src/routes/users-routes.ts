/** The users resource: registration and reads, translated into gateway operations. */
import { z } from 'zod';
import { UserCreate, UserPublic } from '@platform/contracts';
import { notFound } from '@platform/errors';
import { defineRoute } from '../http/route';
import { CreateUser, GetUser } from '../operations/users-operations';
import { toUserPublic } from './user-representation';

const UserIdParams = z.object({
  user_id: z.coerce.number().int('must be an integer').min(1, 'must be >= 1').describe('User id, an integer >= 1'),
});

const booleanQuery = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

export const usersRoutes = [
  defineRoute({
    method: 'post',
    path: '/users/',
    operationId: 'createUser',
    summary: 'Register a user',
    tags: ['users'],
    security: 'public',
    body: UserCreate,
    responses: { 201: { description: 'The created user', schema: UserPublic }, 409: { description: 'Username or e-mail already registered' } },
    handler: async ({ body, gateway, credentials }) => {
      const data = await gateway.execute(CreateUser, { input: body }, credentials);
      return { status: 201, body: toUserPublic(data.createUser) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/users/:user_id',
    operationId: 'getUser',
    summary: 'Retrieve a user',
    tags: ['users'],
    security: 'bearer-or-api-key',
    scope: 'users:read',
    params: UserIdParams,
    query: z.object({
      include_inactive: booleanQuery.optional().describe('Also return an inactive user (default false)'),
    }),
    responses: { 200: { description: 'The user', schema: UserPublic } },
    handler: async ({ params, query, gateway, credentials }) => {
      const data = await gateway.execute(
        GetUser,
        { id: String(params.user_id), includeInactive: query.include_inactive ?? false },
        credentials,
      );
      if (!data.user) throw notFound('User', params.user_id);
      return { status: 200, body: toUserPublic(data.user) };
    },
  }),
];
