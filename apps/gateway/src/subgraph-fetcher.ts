/**
 * How the gateway reaches a subgraph: undici with a keep-alive pool per subgraph origin and a hard deadline per
 * request (connect, headers and body together), so a slow or dead subgraph costs at most SUBGRAPH_TIMEOUT_MS.
 */
import { STATUS_CODES } from 'node:http';
import type { Fetcher, FetcherResponse } from '@apollo/utils.fetcher';
import { Pool } from 'undici';

export interface SubgraphFetcher {
  fetcher: Fetcher;
  close(): Promise<void>;
}

export function createSubgraphFetcher(timeoutMs: number): SubgraphFetcher {
  const pools = new Map<string, Pool>();
  const poolFor = (origin: string): Pool => {
    let pool = pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: 64,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        connect: { timeout: Math.min(timeoutMs, 2_000) },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      pools.set(origin, pool);
    }
    return pool;
  };

  const targets = new Map<string, { pool: Pool; path: string }>();
  const targetFor = (url: string) => {
    let target = targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      target = { pool: poolFor(parsed.origin), path: `${parsed.pathname}${parsed.search}` };
      targets.set(url, target);
    }
    return target;
  };

  // undici's request() rather than its WHATWG fetch(): the same pool and deadline for a fraction of the CPU per call
  // (docs/performance.md); the gateway reads only status, headers.get, text() and json() of the response.
  const fetcher: Fetcher = async (url, init = {}) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([deadline, init.signal as AbortSignal]) : deadline;
    const { pool, path } = targetFor(url);
    const response = await pool.request({
      method: (init.method ?? 'POST') as 'POST',
      path,
      headers: (init.headers ?? {}) as Record<string, string>,
      body: typeof init.body === 'string' ? init.body : null,
      signal,
    });
    const text = await response.body.text();
    const headers = response.headers;
    const result = {
      url,
      ok: response.statusCode >= 200 && response.statusCode < 300,
      status: response.statusCode,
      statusText: STATUS_CODES[response.statusCode] ?? '',
      headers: {
        get: (name: string) => {
          const value = headers[name.toLowerCase()];
          return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
        },
      },
      text: () => Promise.resolve(text),
      json: () => Promise.resolve(JSON.parse(text) as unknown),
    };
    return result as unknown as FetcherResponse;
  };

  return {
    fetcher,
    close: async () => {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      pools.clear();
    },
  };
}
