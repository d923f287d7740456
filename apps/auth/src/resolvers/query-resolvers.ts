/** Root queries of the auth subgraph. */
import type { Resolvers } from '../__generated__/resolvers-types';

export const queryResolvers = {
  Query: {
    _authVersion: () => '1',
  },
} satisfies Resolvers;
