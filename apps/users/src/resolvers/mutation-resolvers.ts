/** Root mutations of the users subgraph; every rule lives in the domain service. */
import { parseEntityId } from '@platform/contracts';
import type { UpdateUserArgs } from '../domain/user-service';
import type { UsersContext } from '../context';
import { registeredInRequest } from './user-resolvers';

/** `expectedVersion`: the version the client last saw (REST If-Match); the write is refused (412) if it moved on. */
type IdArgs = { id: string; expectedVersion?: number | null };
type UpdateArgs = IdArgs & { input: UpdateUserArgs };

export const mutationResolvers = {
  Mutation: {
    createUser: async (_: unknown, args: { input: unknown }, context: UsersContext) => {
      const user = await context.services.users.register(args.input, context.requestId);
      registeredInRequest.add(user);
      return user;
    },
    updateUser: (_: unknown, args: UpdateArgs, context: UsersContext) =>
      context.services.users.update(context, parseEntityId(args.id, 'id'), args.input, args.expectedVersion),
    replaceUser: (_: unknown, args: UpdateArgs, context: UsersContext) =>
      context.services.users.replace(context, parseEntityId(args.id, 'id'), args.input, args.expectedVersion),
    deleteUser: (_: unknown, args: IdArgs, context: UsersContext) =>
      context.services.users.delete(context, parseEntityId(args.id, 'id'), args.expectedVersion),
    _revokeAccessTokens: (_: unknown, args: IdArgs, context: UsersContext) =>
      context.services.users.revokeAccessTokens(context, parseEntityId(args.id, 'id')),
    activateUser: (_: unknown, args: IdArgs, context: UsersContext) =>
      context.services.users.setActive(context, parseEntityId(args.id, 'id'), true, args.expectedVersion),
    deactivateUser: (_: unknown, args: IdArgs, context: UsersContext) =>
      context.services.users.setActive(context, parseEntityId(args.id, 'id'), false, args.expectedVersion),
  },
};
