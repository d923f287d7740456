/**
 * Generations in Redis per subgraph, collection and document (ADR 0017, ADR 0019): the read cache of subgraph query
 * answers kept by the gateway's executor, the caches of credential verdicts, and the subgraphs' bumps after writes.
 */
export {
  createSubgraphReadCache,
  type CachedRead,
  type ReadCacheOptions,
  type SubgraphRead,
  type SubgraphReadCache,
} from './subgraph-read-cache';
export {
  collectWrite,
  createSubgraphWrites,
  hasWrites,
  type CollectedWrites,
  type SubgraphWrites,
  type WrittenData,
} from './subgraph-writes';
export { RedisGenerations, type GenerationsOptions } from './redis-generations';
export { GenerationReader, GenerationSnapshot } from './generation-snapshot';
export { GenerationCache, type GenerationCacheOptions, type GenerationLookup } from './generation-cache';
export { KeptAnswers, type KeptAnswersOptions } from './kept-answers';
export {
  anyGeneration,
  collectionGeneration,
  entityGeneration,
  flushGeneration,
  legacyGeneration,
  takeReadDependencies,
  READ_DEPENDENCIES_EXTENSION,
  type ReadDependencies,
  ACCOUNTS,
  accountGenerations,
} from './generation-keys';
