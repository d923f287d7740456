/** Root queries of the users subgraph. */
import { parseEntityId } from '@platform/contracts';
import type { Resolvers } from '../__generated__/resolvers-types';

export const queryResolvers = {
  Query: {
    me: (_, _args, context) => context.services.users.me(context),
    user: (_, args, context) =>
      context.services.users.findVisible(context, parseEntityId(args.id, 'id'), args.includeInactive === true),
    users: (_, args, context) => context.services.listing.list(context, args),
    _accountStatus: async (_, args, context) => {
      const user = await context.services.users.accountStatus(context, parseEntityId(args.id, 'id'));
      return (
        user && {
          id: String(user._id),
          username: user.username,
          role: user.role,
          isActive: user.isActive,
          tokensValidAfter: user.tokensValidAfter?.getTime() ?? null,
        }
      );
    },
  },
} satisfies Resolvers;
