/** The User entity as this subgraph extends it: a user's posts, batched across every user in the response. */
import { requireScope } from '@platform/auth';
import { isEntityId } from '@platform/contracts';
import { parseNestedFirst } from '@platform/listing';
import type { PostsContext } from '../context';

interface UserReference {
  id: string;
}

export const userResolvers = {
  User: {
    __resolveReference: (reference: UserReference) => ({ id: reference.id }),
    posts: (user: UserReference, args: { first?: number | null }, context: PostsContext) => {
      requireScope(context.principal, 'posts:read', context.authError);
      const first = parseNestedFirst(args.first);
      return isEntityId(user.id) ? context.loaders.postsByAuthor(first).load(Number(user.id)) : [];
    },
  },
};
