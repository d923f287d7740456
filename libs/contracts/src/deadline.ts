/**
 * The write deadline a caller hands down to a subgraph (docs/decisions/0020-write-deadlines-and-claims.md): the latest a
 * write step may start, and how long a step once sent may take to commit or abort (its commit bound). The caller (the
 * gateway, the facade's embedded gateway, one subgraph calling another) sends both as relative milliseconds in two
 * headers, trusted because only SUBGRAPH_SECRET holders reach a subgraph; the subgraph turns them into a Deadline on
 * its own clock at receipt and runs the request in its scope (AsyncLocalStorage, as a Go context carries its deadline),
 * so the data layer checks it before every write step without every signature carrying it. A caller that waits
 * `deadline + commit bound` for a mutation's answer therefore learns its real outcome from a healthy subgraph.
 *
 * Hand-written: the deadline is a two-number protocol between our own processes; gRPC's `grpc-timeout` is the model,
 * and no HTTP library carries a deadline with a commit bound.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from '@platform/errors';

/** Milliseconds left, at the sender, until the last moment a write step may start. */
export const DEADLINE_HEADER = 'x-deadline-ms';
/** Milliseconds a write step sent before the deadline may take to commit or abort (the server's maxTimeMS). */
export const COMMIT_TIMEOUT_HEADER = 'x-commit-timeout-ms';

/** A subgraph called without deadline headers (tests, start-up work): the gateway's defaults. */
export const DEFAULT_DEADLINE_MS = 5_000;
export const DEFAULT_COMMIT_TIMEOUT_MS = 3_000;
/**
 * What a caller of a mutation waits beyond the deadline and the commit bound: the subgraph's read that settles a write
 * whose answer it lost (up to 750 ms, libs/mongo version-claims.ts), its answer, the network.
 */
export const MUTATION_SLACK_MS = 1_500;
/** Neither header may ask for more than this (a bad header must not keep a write going for hours). */
const MAX_HEADER_MS = 600_000;

/** Seconds a client waits before retrying a write refused because its deadline passed (nothing was written). */
const RETRY_AFTER_SECONDS = '1';

export class Deadline {
  private constructor(
    /** Epoch ms (this process's clock): no write step starts after it. */
    readonly startBy: number,
    /** How long one write step, once sent, may take to commit or abort. */
    readonly commitMs: number,
  ) {}

  static in(budgetMs: number, commitMs: number, now: number = Date.now()): Deadline {
    return new Deadline(now + Math.max(0, budgetMs), Math.max(1, commitMs));
  }

  /** The deadline the headers name, or the defaults for a header that is absent or not a number of milliseconds. */
  static fromHeaders(headers: Record<string, string | string[] | undefined>, now: number = Date.now()): Deadline {
    return Deadline.in(
      headerMs(headers[DEADLINE_HEADER]) ?? DEFAULT_DEADLINE_MS,
      headerMs(headers[COMMIT_TIMEOUT_HEADER]) ?? DEFAULT_COMMIT_TIMEOUT_MS,
      now,
    );
  }

  remainingMs(now: number = Date.now()): number {
    return Math.max(0, this.startBy - now);
  }

  expired(now: number = Date.now()): boolean {
    return now >= this.startBy;
  }

  /** Throws when no write step may start any more; the caller has then committed nothing of this write. */
  ensureTime(now: number = Date.now()): void {
    if (this.expired(now)) throw deadlineExceeded();
  }

  /**
   * The latest any write step of this request has committed or aborted: what a claim records for those who wait. A
   * step starts by the deadline and is bounded by the commit timeout; the MongoDB driver may send a retryable write
   * once more after a network error, with a bound of its own, hence twice.
   */
  settledBy(): number {
    return this.startBy + 2 * this.commitMs;
  }

  /** How long a caller waits for a mutation under this deadline: until its writes have settled, and the slack. */
  mutationWaitMs(now: number = Date.now()): number {
    return this.remainingMs(now) + this.commitMs + MUTATION_SLACK_MS;
  }

  /** The headers that hand what is left of this deadline on to another subgraph. */
  headers(now: number = Date.now()): Record<string, string> {
    return {
      [DEADLINE_HEADER]: String(Math.floor(this.remainingMs(now))),
      [COMMIT_TIMEOUT_HEADER]: String(this.commitMs),
    };
  }
}

/** Nothing was written and nothing will be: the client may retry (503 + Retry-After). */
export const deadlineExceeded = (): AppError =>
  new AppError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable; nothing was changed, retry', {
    headers: { 'retry-after': RETRY_AFTER_SECONDS },
  });

function headerMs(value: string | string[] | undefined): number | undefined {
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value)) return undefined;
  return Math.min(Number(value), MAX_HEADER_MS);
}

const scope = new AsyncLocalStorage<Deadline>();

/** Runs `work` (and everything it awaits) under `deadline`. */
export const withDeadline = <T>(deadline: Deadline, work: () => T): T => scope.run(deadline, work);

/** The deadline of the request being served, or a fresh default one outside any (start-up work, scripts). */
export const currentDeadline = (): Deadline =>
  scope.getStore() ?? Deadline.in(DEFAULT_DEADLINE_MS, DEFAULT_COMMIT_TIMEOUT_MS);
