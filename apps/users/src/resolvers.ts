/**
 * Resolvers of the users subgraph, all in one map: root queries and mutations (every rule lives in the domain
 * service; the resolvers parse the GraphQL `ID` into the stored number and hand over), and the User type (derived from
 * the user's declaration, e-mail visibility, entity references for federation).
 */
import { isEntityId, parseEntityId, users } from '@platform/contracts';
import { AppError } from '@platform/errors';
import { isAdmin } from '@platform/auth';
import { typeResolvers } from '@platform/graphql-server';
import type { UserDocument } from './data-access/user-repository';
import type { UsersContext } from './context';
import type { Resolvers, UserResolvers } from './__generated__/resolvers-types';

/** Profiles returned by a registration in this request: the registrant sees its own e-mail without a token. */
const registeredInRequest = new WeakSet<UserDocument>();

/**
 * The e-mail address is personal data: other subgraphs reach users through entity references (`Item.owner`,
 * `Post.author`), so a caller holding only `items:read` or `posts:read` sees usernames but not e-mail addresses.
 * Whoever may write the record (itself, or an admin with `users:write`) sees it too: a write declared to need only
 * `users:write` (PUT/PATCH, activate, a password reset) answers the record it wrote, e-mail included.
 */
function canSeeEmail(user: UserDocument, context: UsersContext): boolean {
  const principal = context.principal;
  if (registeredInRequest.has(user)) return true;
  if (!principal) return false;
  return (
    principal.kind === 'service' ||
    principal.userId === user._id ||
    principal.scopes.includes('users:read') ||
    (principal.scopes.includes('users:write') && isAdmin(principal))
  );
}

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
          tokensValidAfter: user.tokensValidAfter?.getTime() ?? null,
        }
      );
    },
  },
  Mutation: {
    createUser: async (_, args, context) => {
      const user = await context.services.users.register(args.input, context.requestId);
      registeredInRequest.add(user);
      return user;
    },
    updateUser: (_, args, context) =>
      context.services.users.write('update', context, parseEntityId(args.id, 'id'), args.input, args.expectedVersion),
    replaceUser: (_, args, context) =>
      context.services.users.write('replace', context, parseEntityId(args.id, 'id'), args.input, args.expectedVersion),
    deleteUser: (_, args, context) =>
      context.services.users.delete(context, parseEntityId(args.id, 'id'), args.expectedVersion),
    _revokeAccessTokens: (_, args, context) =>
      context.services.users.revokeAccessTokens(context, parseEntityId(args.id, 'id'), args.expectedVersion),
    activateUser: (_, args, context) =>
      context.services.users.setActive(context, parseEntityId(args.id, 'id'), true, args.expectedVersion),
    deactivateUser: (_, args, context) =>
      context.services.users.setActive(context, parseEntityId(args.id, 'id'), false, args.expectedVersion),
  },
  User: {
    ...(typeResolvers<UsersContext>(users) as UserResolvers),
    email: (user, _args, context) => {
      if (!canSeeEmail(user, context))
        throw new AppError('FORBIDDEN', 'Not enough permissions. Required: users:read');
      return user.email;
    },
    __resolveReference: (reference, context) =>
      isEntityId(reference.id) ? context.loaders.userById.load(Number(reference.id)) : null,
  },
} satisfies Resolvers;
