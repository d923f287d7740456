/**
 * The relay of a service's change log (ADR 0023): publishes the events its writes recorded in `event_outbox` to the
 * events service. A committed write's event is pushed at once (batched per event-loop turn, after the answer went
 * out: publishing adds no latency to the write); what a push could not deliver (events service down) and what a
 * process that died mid-write left behind is taken by the sweep, which decides from the data whether the write
 * happened (EventOutbox.decide) and publishes or drops the entry. The events service records each event id once, so a
 * push and a sweep (or two replicas' sweeps) publishing the same event record it once.
 */
import type { Db } from 'mongodb';
import type { RecordedEvent } from '@platform/events';
import { eventOutboxDropped, eventPublishFailures } from '@platform/metrics';
import {
  EventOutbox,
  type AbandonedEntry,
  type ClaimRef,
  type EventPublisher,
  type PendingEvent,
} from './event-outbox';
import { CLAIM_DROP_AFTER_MS } from './version-claims';

const BATCH = 100;
/**
 * How pushes are paced. Each push is a request to the events service and a batch of inserts there (with the fan-out's
 * read of the subscriptions and the bump of the feed's generations), about the same cost whether it carries one event
 * or a hundred; each drop is a delete that FerretDB v1 runs as a pass over the collection under the database's one
 * writer. A committed write's event waits PUSH_GATHER_MS for others to join it, and a push starts at least
 * PUSH_INTERVAL_MS after the one before it started, so under load a push carries what that interval gathered (at 150
 * writes a second, about 35 events) and a lone write's event still goes within PUSH_GATHER_MS. Measured with 4 writers
 * (`npm run bench:events`): pushing whatever came in while the push before was on its way gave pushes of 1.4 events
 * and cost the events service about 2.2 ms of CPU per write; an interval of 100 ms, 0.4-0.5 ms; 250 ms, 0.3.
 */
const PUSH_GATHER_MS = 20;
const PUSH_INTERVAL_MS = 250;
/** Published entries are dropped together this often (each drop reads the collection on FerretDB, see above). */
const DROP_WINDOW_MS = 3_000;

/** A recorded event as published: a deletion's carries its subject and version (see CommitCheck). */
export type PublishedEvent = RecordedEvent & { deletes?: { subject: string; fromVersion: number } };

/** Where the relay publishes: the events service (over GraphQL from a subgraph, or its own store in its processes). */
export interface EventTransport {
  publish(events: PublishedEvent[]): Promise<void>;
  /** The version a record had when its deletion was published (`items:5`), or null when none was. */
  deletionOf(subject: string): Promise<number | null>;
  close?(): Promise<void>;
}

/** The log lines the relay writes (a pino logger satisfies it). */
interface RelayLogger {
  info(fields: object, message: string): void;
  info(message: string): void;
  warn(fields: object, message: string): void;
  warn(message: string): void;
}

export interface EventRelayOptions {
  db: Db;
  logger: RelayLogger;
  transport: EventTransport;
  /** The longest a write may take: older entries are the sweep's (EVENTS_SWEEP_AFTER_MS). */
  sweepAfterMs: number;
  /** Fault injection for the crash tests (EVENTS_FAULT_POINT): SIGKILL this process after its n-th committed write. */
  crashAfterWrite?: number | undefined;
}

/** A committed write's event, the claim that carries it (none: its outbox entry) and when the relay learned of it. */
interface Committed {
  pending: PendingEvent;
  claim: ClaimRef | undefined;
  committedAt: number;
}

/** A published entry waiting for its drop: its claim (null: an outbox entry), dropped no sooner than `notBefore`. */
interface Published {
  claim: ClaimRef | null;
  notBefore: number;
}

export class EventRelay implements EventPublisher {
  readonly outbox: EventOutbox;
  private readonly queue: Committed[] = [];
  private flushing: Promise<void> | undefined;
  /** When the last push started (pushes are paced: PUSH_INTERVAL_MS). */
  private lastPushAt = 0;
  private sweeping: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private writes = 0;
  /** Entries a push is publishing now: the sweep leaves them alone (no second publish of a slow push). */
  private readonly inFlight = new Set<string>();
  /**
   * Entries published and not yet dropped (dropped together every DROP_WINDOW_MS, a claim no sooner than
   * CLAIM_DROP_AFTER_MS after its write committed), by event id: not the sweep's either.
   */
  private readonly published = new Map<string, Published>();
  private dropTimer: NodeJS.Timeout | undefined;
  private dropping: Promise<void> | undefined;
  private unreachable = false;

  constructor(private readonly options: EventRelayOptions) {
    this.outbox = new EventOutbox(options.db, this);
  }

  /** Sweeps every half of EVENTS_SWEEP_AFTER_MS (at most every 5 s), first right away (what a predecessor left). */
  start(): void {
    const every = Math.min(Math.max(this.options.sweepAfterMs / 2, 200), 5_000);
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
    void this.sweep();
  }

  afterWrite(): void {
    this.writes += 1;
    if (this.options.crashAfterWrite !== undefined && this.writes >= this.options.crashAfterWrite) {
      this.options.logger.warn('EVENTS_FAULT_POINT: killing this process between a write and its publish');
      process.kill(process.pid, 'SIGKILL');
    }
  }

  committed(pending: PendingEvent, claim?: ClaimRef): void {
    this.queue.push({ pending, claim, committedAt: Date.now() });
    this.flushing ??= this.flush();
  }

  /** Drops the published entries once due (a failed drop leaves them to the sweep, which drops them). */
  private dropLater(entries: ReadonlyArray<{ id: string } & Published>): void {
    for (const { id, claim, notBefore } of entries) this.published.set(id, { claim, notBefore });
    this.scheduleDrop();
  }

  private scheduleDrop(): void {
    if (this.dropTimer || this.published.size === 0) return;
    this.dropTimer = setTimeout(() => void this.dropPublished(), DROP_WINDOW_MS);
    this.dropTimer.unref();
  }

  /**
   * Drops what was published so far, after any drop still running (one at a time: each takes the entries published
   * when it starts, so none is deleted twice).
   */
  private dropPublished(): Promise<void> {
    this.dropTimer = undefined;
    const run = async () => {
      const now = Date.now();
      const dropped = [...this.published].filter(([, { notBefore }]) => notBefore <= now);
      try {
        await this.outbox.drop(dropped.filter(([, { claim }]) => claim === null).map(([id]) => id));
        await this.outbox.dropClaimed(
          dropped.flatMap(([, { claim }]) => (claim ? [{ ...claim, happened: true }] : [])),
        );
      } catch {
        // The database away: the entries stay, and the sweep publishes them again (recorded once) and drops them.
      } finally {
        for (const [id] of dropped) this.published.delete(id);
        this.scheduleDrop();
      }
    };
    const dropping = (this.dropping ?? Promise.resolve()).then(run);
    this.dropping = dropping;
    void dropping.finally(() => {
      if (this.dropping === dropping) this.dropping = undefined;
    });
    return dropping;
  }

  /** Publishes what is queued, then what was queued meanwhile, paced; a failure leaves the entries to the sweep. */
  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        // A full batch waiting goes at once: the pacing gathers events, it does not cap their rate.
        const wait =
          this.queue.length >= BATCH ? 0 : Math.max(PUSH_GATHER_MS, this.lastPushAt + PUSH_INTERVAL_MS - Date.now());
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        this.lastPushAt = Date.now();
        const batch = this.queue.splice(0, BATCH);
        const ids = batch.map((c) => c.pending.event.id);
        for (const id of ids) this.inFlight.add(id);
        try {
          await this.publish(batch.map((c) => c.pending));
          this.dropLater(
            batch.map(({ pending, claim, committedAt }) => ({
              id: pending.event.id,
              claim: claim ?? null,
              // A claim outlives its write by CLAIM_DROP_AFTER_MS (version-claims.ts: no stale writer wins it again).
              notBefore: claim ? committedAt + CLAIM_DROP_AFTER_MS : 0,
            })),
          );
        } catch (error) {
          this.failed(error);
        } finally {
          for (const id of ids) this.inFlight.delete(id);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }

  /** A deletion's event carries its subject and version, so a later sweep can ask whether a record went past one. */
  private async publish(pending: readonly PendingEvent[]): Promise<void> {
    const events: PublishedEvent[] = pending.map(({ event, check }) =>
      check.expect === 'absent'
        ? { ...event, deletes: { subject: check.subject, fromVersion: check.fromVersion ?? 0 } }
        : event,
    );
    await this.options.transport.publish(events);
    if (this.unreachable) this.options.logger.info('events service reachable again; publishing');
    this.unreachable = false;
  }

  private failed(error: unknown): void {
    eventPublishFailures.inc();
    if (!this.unreachable) {
      this.options.logger.warn(
        { err: { message: error instanceof Error ? error.message : String(error) } },
        'events service unreachable; events stay in the outbox until the sweep publishes them',
      );
    }
    this.unreachable = true;
  }

  /** One pass over the abandoned entries (one at a time per process). */
  sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    try {
      for (;;) {
        const found = await this.outbox.abandoned(new Date(Date.now() - this.options.sweepAfterMs), BATCH);
        // This process's own: waiting for their push, on their way, or published and waiting for their drop.
        const queued = new Set(this.queue.map((c) => c.pending.event.id));
        const entries = found.filter(
          ({ pending: { event } }) => !queued.has(event.id) && !this.inFlight.has(event.id) && !this.published.has(event.id),
        );
        /** With when the data showed the write committed (this process's clock: a bound after the commit). */
        const publish: Array<AbandonedEntry & { seenAt: number }> = [];
        const drop: AbandonedEntry[] = [];
        for (const entry of entries) {
          const verdict = await this.happened(entry);
          if (verdict === true) publish.push({ ...entry, seenAt: Date.now() });
          else if (verdict === false) drop.push(entry);
        }
        if (publish.length > 0) await this.publish(publish.map((e) => e.pending));
        // Never happened: the outbox entry goes, a claim keeps only the claim. Published: dropped as a push's are, a
        // claim no sooner than CLAIM_DROP_AFTER_MS after the data showed its commit (on this process's clock, as the
        // holder's settledBy is not: the replicas' clocks need not agree).
        await this.outbox.drop(drop.filter((e) => !e.claim).map((e) => e.pending.event.id));
        await this.outbox.dropClaimed(
          drop.flatMap((e) => (e.claim ? [{ _id: e.claim._id, attempt: e.claim.attempt, happened: false }] : [])),
        );
        this.dropLater(
          publish.map((e) => ({
            id: e.pending.event.id,
            claim: e.claim ? { _id: e.claim._id, attempt: e.claim.attempt } : null,
            notBefore: e.claim ? e.seenAt + CLAIM_DROP_AFTER_MS : 0,
          })),
        );
        const decided = [...publish, ...drop];
        if (drop.length > 0) {
          eventOutboxDropped.inc(drop.length);
          this.options.logger.info(
            { events: drop.length },
            'dropped the events of writes that never happened',
          );
        }
        // A full batch with something decided: there may be more. (Undecided claims wait for a later pass.)
        if (found.length < BATCH || decided.length === 0) return;
      }
    } catch (error) {
      this.failed(error);
    }
  }

  /**
   * Whether the write of an abandoned entry happened (see EventOutbox.decide and its CommitCheck; a claim's event by
   * the claim's rules too), or `undecided` (a claim whose holder may still write).
   */
  private async happened(entry: AbandonedEntry): Promise<boolean | 'undecided'> {
    const check = entry.pending.check;
    const verdict = entry.claim
      ? await this.outbox.claimedEventVerdict({ ...entry, claim: entry.claim })
      : await this.outbox.decide(check);
    if (verdict !== 'deleted-since') return verdict;
    // Created or updated, then gone: the deletion that followed, if it left the record at or past this version.
    const needed = typeof check.expect === 'object' ? check.expect.versionAtLeast : 0;
    const local = await this.outbox.pendingDeletionOf(check.subject);
    const fromVersion = local?.fromVersion ?? (await this.options.transport.deletionOf(check.subject));
    return fromVersion !== null && fromVersion !== undefined && fromVersion >= needed;
  }

  /**
   * Stops: publishes what is queued and drops what is due. A claim not yet due stays with its event: the next sweep (a
   * successor's, another replica's) publishes it again, which the events service records once, and drops it.
   */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing;
    clearTimeout(this.dropTimer);
    await this.dropPublished();
    clearTimeout(this.dropTimer);
    await this.sweeping;
    await this.options.transport.close?.();
  }
}
