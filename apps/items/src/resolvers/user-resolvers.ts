/** The User entity as this subgraph extends it: a user's items, batched across every user in the response. */
import { requireScope } from '@platform/auth';
import { isEntityId } from '@platform/contracts';
import { parseNestedFirst } from '@platform/listing';
import type { ItemsContext } from '../context';

interface UserReference {
  id: string;
}

export const userResolvers = {
  User: {
    __resolveReference: (reference: UserReference) => ({ id: reference.id }),
    items: (user: UserReference, args: { first?: number | null }, context: ItemsContext) => {
      requireScope(context.principal, 'items:read', context.authError);
      const first = parseNestedFirst(args.first);
      return isEntityId(user.id) ? context.loaders.itemsByOwner(first).load(Number(user.id)) : [];
    },
  },
};
