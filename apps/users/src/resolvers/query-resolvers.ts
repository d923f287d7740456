/** Root queries of the users subgraph. */
import { parseEntityId } from '@platform/contracts';
import type { UsersContext } from '../context';
import type { UserDocument } from '../data-access/user-repository';
import type { UsersListArgs } from '../domain/user-listing';

export const queryResolvers = {
  Query: {
    me: (_: unknown, _args: unknown, context: UsersContext) => context.services.users.me(context),
    user: (_: unknown, args: { id: string; includeInactive?: boolean | null }, context: UsersContext) =>
      context.services.users.findVisible(
        context,
        parseEntityId(args.id, 'id'),
        args.includeInactive === true,
      ),
    users: (_: unknown, args: UsersListArgs, context: UsersContext) =>
      context.services.listing.list(context, args),
    _accountStatus: async (_: unknown, args: { id: string }, context: UsersContext) => {
      const user: UserDocument | null = await context.services.users.accountStatus(
        context,
        parseEntityId(args.id, 'id'),
      );
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
};
