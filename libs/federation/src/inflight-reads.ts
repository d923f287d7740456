/**
 * Deduplication of identical in-flight subgraph reads (SUBGRAPH_DEDUP): identical reads (same subgraph, same body, same
 * identity-carrying headers: the caller builds the key) share one fetch instead of each sending its own. Only queries:
 * a mutation always runs once per caller. Each waiter but the fetch's own gets a deep copy of the answer: the gateway
 * merges later fetches into the objects it received.
 *
 * Two ways to share, chosen by what the caller knows (ADR 0017, "With in-flight deduplication"):
 * - `shared`: the key holds the read-cache generation the reader read. A read may join the fetch already on its way:
 *   both readers read the same generation, so no write that returned before either arrived is missing from it.
 * - `ordered`: no generation (the cache off, or Redis unknown). Joining a fetch already sent could hand a read that
 *   arrives after a write returned an answer read before that write. So a read may only join a fetch that has not been
 *   sent yet: while one fetch of the key is on its way, the identical reads that arrive wait together for the next,
 *   which is sent when the current one settles, i.e. after each of them arrived. Every answer was therefore read after
 *   its reader arrived, as if it had sent its own fetch, and a key has at most one fetch on its way and one gathering.
 *   The price is latency: a waiter may wait for the rest of the current fetch before its own is sent.
 *
 * Hand-written: the libraries that coalesce requests (dataloader's cache, p-memoize, Hive Gateway's executor) share the
 * fetch in flight, which is the `shared` way only.
 */
import { inFlightReads, metricsRecording } from '@platform/metrics';

/** How a read may share: join the fetch in flight (`shared`), or only one not sent yet (`ordered`). */
export type Sharing = 'shared' | 'ordered';

export class InFlightReads<T> {
  /** `shared` keys: the fetch on its way. */
  private readonly running = new Map<string, Promise<T>>();
  /** `ordered` keys: the fetch on its way (none may join it), and the next one that its arrivals wait for together. */
  private readonly sending = new Map<string, Promise<T>>();
  private readonly gathering = new Map<string, Promise<T>>();

  constructor(
    /** The subgraph's name: the metrics label. */
    private readonly upstream: string,
    /** A deep copy of an answer, for every waiter but the one whose fetch it was. */
    private readonly copy: (value: T) => T = structuredClone,
  ) {}

  /**
   * Runs `fetch`, or shares an identical read's (`key`) as `sharing` allows, answering a copy of its outcome. Without
   * a key (a read that may not be shared) it only counts the fetch as sent.
   */
  run(key: string | undefined, fetch: () => Promise<T>, sharing: Sharing = 'shared'): Promise<T> {
    if (key === undefined) {
      this.count('sent');
      return fetch();
    }
    return sharing === 'shared' ? this.joinRunning(key, fetch) : this.joinNext(key, fetch);
  }

  private joinRunning(key: string, fetch: () => Promise<T>): Promise<T> {
    const running = this.running.get(key);
    if (running) {
      this.count('merged');
      return running.then(this.copy);
    }
    this.count('sent');
    const started = fetch().finally(() => this.running.delete(key));
    this.running.set(key, started);
    return started;
  }

  private joinNext(key: string, fetch: () => Promise<T>): Promise<T> {
    const gathering = this.gathering.get(key);
    if (gathering) {
      this.count('merged');
      return gathering.then(this.copy);
    }
    const sending = this.sending.get(key);
    this.count('sent');
    if (!sending) return this.send(key, fetch);
    // The first read to arrive while a fetch is on its way sends the next one when that fetch settles, however it does.
    const settled = (): Promise<T> => {
      this.gathering.delete(key);
      return this.send(key, fetch);
    };
    const next = sending.then(settled, settled);
    this.gathering.set(key, next);
    return next;
  }

  private send(key: string, fetch: () => Promise<T>): Promise<T> {
    const started = fetch().finally(() => {
      if (this.sending.get(key) === started) this.sending.delete(key);
    });
    this.sending.set(key, started);
    return started;
  }

  private count(result: 'sent' | 'merged'): void {
    if (metricsRecording()) inFlightReads.inc({ upstream: this.upstream, result });
  }
}
