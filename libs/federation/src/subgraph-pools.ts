/**
 * How the gateway reaches a subgraph: undici's `request()` on a keep-alive pool per subgraph origin (not WHATWG fetch,
 * not node-fetch: a fraction of the CPU per call, docs/performance.md), with undici's own timers as the deadline: the
 * answer's headers within SUBGRAPH_TIMEOUT_MS (connect included), then no gap longer than that in its body.
 */
import { STATUS_CODES } from 'node:http';
import { Pool } from 'undici';

export interface SubgraphAnswer {
  status: number;
  statusText: string;
  contentType: string;
  body: string;
}

export interface SubgraphPools {
  /** POSTs `body` to `url`; rejects when no answer arrives in time (refused, reset, timed out). */
  post(url: string, headers: Record<string, string>, body: string): Promise<SubgraphAnswer>;
  close(): Promise<void>;
}

export function createSubgraphPools(timeoutMs: number): SubgraphPools {
  const pools = new Map<string, Pool>();
  const targets = new Map<string, { pool: Pool; path: string }>();
  const targetFor = (url: string) => {
    let target = targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      let pool = pools.get(parsed.origin);
      if (!pool) {
        pool = new Pool(parsed.origin, {
          connections: 64,
          pipelining: 1,
          keepAliveTimeout: 30_000,
          connect: { timeout: Math.min(timeoutMs, 2_000) },
        });
        pools.set(parsed.origin, pool);
      }
      target = { pool, path: `${parsed.pathname}${parsed.search}` };
      targets.set(url, target);
    }
    return target;
  };

  return {
    async post(url, headers, body) {
      const { pool, path } = targetFor(url);
      const response = await pool.request({
        method: 'POST',
        path,
        headers,
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const contentType = response.headers['content-type'];
      return {
        status: response.statusCode,
        statusText: STATUS_CODES[response.statusCode] ?? '',
        contentType: typeof contentType === 'string' ? contentType : '',
        body: await response.body.text(),
      };
    },
    close: async () => {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      pools.clear();
      targets.clear();
    },
  };
}
