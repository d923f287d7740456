/** Root queries of the posts subgraph. */
import type { PostsContext } from '../context';

export const queryResolvers = {
  Query: {
    post: (_: unknown, args: { id: string }, context: PostsContext) =>
      /^[1-9]\d{0,15}$/.test(args.id) ? context.db.collection('posts').findOne({ _id: Number(args.id) } as never) : null,
  },
  Post: {
    id: (doc: { _id: number }) => String(doc._id),
  },
};
