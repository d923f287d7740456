/** The read cache: subgraph query answers kept by the gateway's executor, invalidated exactly through Redis generations. */
export {
  createSubgraphReadCache,
  type CachedRead,
  type ReadCacheOptions,
  type SubgraphRead,
  type SubgraphReadCache,
} from './subgraph-read-cache';
export { createSubgraphWrites, type SubgraphWrites } from './subgraph-writes';
