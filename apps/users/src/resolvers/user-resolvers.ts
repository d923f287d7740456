/** Resolvers of the User type: field mapping from the stored document, and entity references for federation. */
import type { UserDocument } from '../data-access/user-repository';
import type { UsersContext } from '../context';

export const userResolvers = {
  User: {
    id: (user: UserDocument) => String(user._id),
    createdAt: (user: UserDocument) => user.createdAt.toISOString(),
    __resolveReference: (reference: { id: string }, context: UsersContext) =>
      context.loaders.userById.load(Number(reference.id)),
  },
};
