/**
 * Deduplication of identical in-flight subgraph reads (SUBGRAPH_DEDUP): while one fetch of a query is on its way, an
 * identical one (same subgraph, same body, same identity-carrying headers) waits for it instead of sending its own.
 * Only queries: a mutation always runs once per caller. The key holds every header sent except the request id, so
 * two callers whose credentials differ (another token, scope, role, API key, client IP) never share an answer. Each
 * waiter gets its own copy of the answer: the gateway merges later fetches into the objects it received.
 */
import { inFlightReads, metricsRecording } from '@platform/metrics';

/** The fetch's operation is a query (`query ...` or the `{ ... }` shorthand), never a mutation or subscription. */
export const isQuery = (document: string): boolean => {
  const start = document.trimStart();
  return start.startsWith('query') || start.startsWith('{');
};

export class InFlightReads<T> {
  private readonly pending = new Map<string, Promise<T>>();

  constructor(
    /** The subgraph's name: the metrics label. */
    private readonly upstream: string,
    /** A deep copy of an answer, for every waiter but the one whose fetch it was. */
    private readonly copy: (value: T) => T = structuredClone,
  ) {}

  /**
   * Runs `fetch` unless an identical read (`key`) is in flight; then shares its outcome (a copy of it). Without a key
   * (a read that may not be shared) it only counts the fetch as sent.
   */
  run(key: string | undefined, fetch: () => Promise<T>): Promise<T> {
    if (key === undefined) {
      if (metricsRecording()) inFlightReads.inc({ upstream: this.upstream, result: 'sent' });
      return fetch();
    }
    const running = this.pending.get(key);
    if (running) {
      if (metricsRecording()) inFlightReads.inc({ upstream: this.upstream, result: 'merged' });
      return running.then(this.copy);
    }
    if (metricsRecording()) inFlightReads.inc({ upstream: this.upstream, result: 'sent' });
    const started = fetch().finally(() => this.pending.delete(key));
    this.pending.set(key, started);
    return started;
  }
}

/** The dedup key: the body and every header but the request id (which differs per request and grants nothing). */
export function readKey(body: string, headers: Record<string, string>, requestIdHeader: string): string {
  let key = body;
  for (const name of Object.keys(headers).sort()) {
    if (name !== requestIdHeader) key += `\n${name}:${headers[name]}`;
  }
  return key;
}
