/**
 * The gateway's query-plan cache with hits and misses counted: @apollo/gateway's default store (an InMemoryLRUCache of
 * 30 MiB) behind a KeyValueCache that counts each look-up. The gateway reports no such figure itself.
 */
import { InMemoryLRUCache, type KeyValueCache } from '@apollo/utils.keyvaluecache';
import { queryPlanCache } from '@platform/metrics';

export function countingQueryPlanCache<V>(): KeyValueCache<V> & { clear(): void } {
  const inner = new InMemoryLRUCache<V>();
  return {
    async get(key) {
      const value = await inner.get(key);
      queryPlanCache.inc({ result: value === undefined ? 'miss' : 'hit' });
      return value;
    },
    set: (key, value, options) => inner.set(key, value, options),
    delete: (key) => inner.delete(key),
    // The gateway clears its plans when the schema changes.
    clear: () => inner.clear(),
  };
}
