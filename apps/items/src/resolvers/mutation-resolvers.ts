/** Root mutations of the items subgraph; the domain checks scope, ownership and input. */
import type { ItemsContext } from '../context';

export const mutationResolvers = {
  Mutation: {
    createItem: (_: unknown, args: { input: unknown }, context: ItemsContext) =>
      context.services.items.create(context, args.input),
    replaceItem: (
      _: unknown,
      args: { id: string; input: unknown; expectedVersion?: number | null },
      context: ItemsContext,
    ) => context.services.items.replace(context, args.id, args.input, args.expectedVersion),
    updateItem: (
      _: unknown,
      args: { id: string; input: unknown; expectedVersion?: number | null },
      context: ItemsContext,
    ) => context.services.items.update(context, args.id, args.input, args.expectedVersion),
    deleteItem: (_: unknown, args: { id: string; expectedVersion?: number | null }, context: ItemsContext) =>
      context.services.items.delete(context, args.id, args.expectedVersion),
    _purgeOwner: (_: unknown, args: { userId: string }, context: ItemsContext) =>
      context.services.items.purgeOwner(context, args.userId),
  },
};
