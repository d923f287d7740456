/**
 * The one place a subgraph invalidates the read cache for its writes (docs/decisions/0017-read-cache.md): after every
 * mutation it executed (whatever its outcome: a failed one may have written part), its generation is bumped before the
 * response leaves, so a write that returned has already invalidated every reader's entries.
 */
import type { ApolloServerPlugin, BaseContext, GraphQLRequestListener } from '@apollo/server';
import type { SubgraphWrites } from '@platform/read-cache';

export function readCacheInvalidationPlugin<TContext extends BaseContext>(
  writes: SubgraphWrites,
): ApolloServerPlugin<TContext> {
  // One listener for every request: reads pay for a property check, not an allocation.
  const listener: GraphQLRequestListener<TContext> = {
    async willSendResponse({ operation }) {
      if (operation?.operation === 'mutation') await writes.written();
    },
  };
  return { requestDidStart: async () => listener };
}
