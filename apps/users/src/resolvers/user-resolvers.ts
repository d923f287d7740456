/** Resolvers of the User type: field mapping from the stored document, and entity references for federation. */
import { isEntityId } from '@platform/contracts';
import { AppError } from '@platform/errors';
import { isAdmin } from '@platform/auth';
import type { UserDocument } from '../data-access/user-repository';
import type { UsersContext } from '../context';
import type { Resolvers } from '../__generated__/resolvers-types';

/** Profiles returned by a registration in this request: the registrant sees its own e-mail without a token. */
export const registeredInRequest = new WeakSet<UserDocument>();

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

export const userResolvers = {
  User: {
    id: (user) => String(user._id),
    createdAt: (user) => user.createdAt.toISOString(),
    version: (user) => user.version ?? 0,
    email: (user, _args, context) => {
      if (!canSeeEmail(user, context))
        throw new AppError('FORBIDDEN', 'Not enough permissions. Required: users:read');
      return user.email;
    },
    __resolveReference: (reference, context) =>
      isEntityId(reference.id) ? context.loaders.userById.load(Number(reference.id)) : null,
  },
} satisfies Resolvers;
