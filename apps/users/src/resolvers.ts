/**
 * Resolvers of the users subgraph, all in one map: root queries and mutations (every rule lives in the domain
 * service; the resolvers parse the GraphQL `ID` into the stored number and hand over), and the User type (derived from
 * the user's declaration: fields from the stored document, each personal field (e-mail, state, role...) readable with
 * `users:read` or by whoever may write the account, wherever the user is reached; entity references for federation).
 */
import { isEntityId, parseEntityId, users } from '@platform/contracts';
import { answeredWrite, typeResolvers } from '@platform/graphql-server';
import type { UsersContext } from './context';
import type { Resolvers, UserResolvers } from './__generated__/resolvers-types';

export const resolvers = {
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
          passwordVersion: user.passwordVersion ?? 0,
          tokensValidAfter: user.tokensValidAfter?.getTime() ?? null,
          activeSince: user.activeSince?.getTime() ?? null,
        }
      );
    },
  },
  Mutation: {
    // The registrant reads its own profile (e-mail included) in the answer without a token.
    createUser: async (_, args, context) => answeredWrite(await context.services.users.register(args.input, context.requestId)),
    updateUser: (_, args, context) =>
      context.services.users.write('update', context, parseEntityId(args.id, 'id'), args.input, args.expectedVersion),
    replaceUser: (_, args, context) =>
      context.services.users.write('replace', context, parseEntityId(args.id, 'id'), args.input, args.expectedVersion),
    deleteUser: (_, args, context) =>
      context.services.users.delete(context, parseEntityId(args.id, 'id'), args.expectedVersion),
    _revokeAccessTokens: (_, args, context) =>
      context.services.users.revokeAccessTokens(context, parseEntityId(args.id, 'id'), args.expectedVersion, {
        type: args.actorType,
        id: args.actorId,
      }),
    activateUser: (_, args, context) =>
      context.services.users.setActive(context, parseEntityId(args.id, 'id'), true, args.expectedVersion),
    deactivateUser: (_, args, context) =>
      context.services.users.setActive(context, parseEntityId(args.id, 'id'), false, args.expectedVersion),
  },
  User: {
    ...(typeResolvers<UsersContext>(users) as UserResolvers),
    /**
     * A user reached through a relation (`Item.owner`, `Post.author`, a REST expansion) is shown as `user(id)` shows it:
     * a deactivated account is null (only internal callers still see it), so a relation reveals no more than a read.
     */
    __resolveReference: async (reference, context) => {
      if (!isEntityId(reference.id)) return null;
      const user = await context.loaders.userById.load(Number(reference.id));
      return user && (user.isActive || context.principal?.kind === 'service') ? user : null;
    },
  },
} satisfies Resolvers;
