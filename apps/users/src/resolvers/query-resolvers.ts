/** Root queries of the users subgraph. */
import { parseEntityId } from '../domain/ids';
import type { UsersContext } from '../context';

export const queryResolvers = {
  Query: {
    user: (_: unknown, args: { id: string; includeInactive?: boolean | null }, context: UsersContext) =>
      context.services.users.findVisible(parseEntityId(args.id, 'id'), args.includeInactive === true),
  },
};
