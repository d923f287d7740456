/** Root mutations of the users subgraph. */
import type { UsersContext } from '../context';

export const mutationResolvers = {
  Mutation: {
    createUser: (_: unknown, args: { input: unknown }, context: UsersContext) =>
      context.services.users.register(args.input, context.requestId),
  },
};
