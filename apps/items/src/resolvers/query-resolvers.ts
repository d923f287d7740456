/** Root queries of the items subgraph. */
import type { ConnectionArgs } from '@platform/listing';
import type { ItemsContext } from '../context';

export const queryResolvers = {
  Query: {
    item: (_: unknown, args: { id: string }, context: ItemsContext) =>
      context.services.items.get(context, args.id),
    items: (_: unknown, args: ConnectionArgs, context: ItemsContext) =>
      context.services.items.list(context, args),
  },
};
