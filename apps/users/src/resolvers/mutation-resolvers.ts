/** Root mutations of the users subgraph; every rule lives in the domain service. */
import { parseEntityId } from '@platform/contracts';
import type { UpdateUserArgs } from '../domain/user-service';
import type { UsersContext } from '../context';
import { registeredInRequest } from './user-resolvers';

type IdArgs = { id: string };
type UpdateArgs = IdArgs & { input: UpdateUserArgs };

export const mutationResolvers = {
  Mutation: {
    createUser: async (_: unknown, args: { input: unknown }, context: UsersContext) => {
      const user = await context.services.users.register(args.input, context.requestId);
      registeredInRequest.add(user);
      return user;
    },
    updateUser: (_: unknown, args: UpdateArgs, context: UsersContext) =>
      context.services.users.update(context, parseEntityId(args.id, 'id'), args.input),
    replaceUser: (_: unknown, args: UpdateArgs, context: UsersContext) =>
      context.services.users.replace(context, parseEntityId(args.id, 'id'), args.input),
    deleteUser: (_: unknown, args: IdArgs, context: UsersContext) =>
      context.services.users.delete(context, parseEntityId(args.id, 'id')),
    _revokeAccessTokens: (_: unknown, args: IdArgs, context: UsersContext) =>
      context.services.users.revokeAccessTokens(context, parseEntityId(args.id, 'id')),
    activateUser: (_: unknown, args: IdArgs, context: UsersContext) =>
      context.services.users.setActive(context, parseEntityId(args.id, 'id'), true),
    deactivateUser: (_: unknown, args: IdArgs, context: UsersContext) =>
      context.services.users.setActive(context, parseEntityId(args.id, 'id'), false),
  },
};
