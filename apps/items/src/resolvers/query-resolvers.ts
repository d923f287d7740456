/** Root queries of the items subgraph. */
import type { ItemsContext } from '../context';

export const queryResolvers = {
  Query: {
    item: (_: unknown, args: { id: string }, context: ItemsContext) =>
      /^[1-9]\d{0,15}$/.test(args.id) ? context.db.collection('items').findOne({ _id: Number(args.id) } as never) : null,
  },
  Item: {
    id: (doc: { _id: number }) => String(doc._id),
  },
};
