/** Root mutations of the users subgraph; every rule lives in the domain service. */
import { parseEntityId } from '@platform/contracts';
import type { Resolvers } from '../__generated__/resolvers-types';
import { registeredInRequest } from './user-resolvers';

export const mutationResolvers = {
  Mutation: {
    createUser: async (_, args, context) => {
      const user = await context.services.users.register(args.input, context.requestId);
      registeredInRequest.add(user);
      return user;
    },
    updateUser: (_, args, context) =>
      context.services.users.update(context, parseEntityId(args.id, 'id'), args.input, args.expectedVersion),
    replaceUser: (_, args, context) =>
      context.services.users.replace(context, parseEntityId(args.id, 'id'), args.input, args.expectedVersion),
    deleteUser: (_, args, context) =>
      context.services.users.delete(context, parseEntityId(args.id, 'id'), args.expectedVersion),
    _revokeAccessTokens: (_, args, context) =>
      context.services.users.revokeAccessTokens(context, parseEntityId(args.id, 'id')),
    activateUser: (_, args, context) =>
      context.services.users.setActive(context, parseEntityId(args.id, 'id'), true, args.expectedVersion),
    deactivateUser: (_, args, context) =>
      context.services.users.setActive(context, parseEntityId(args.id, 'id'), false, args.expectedVersion),
  },
} satisfies Resolvers;
