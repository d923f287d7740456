/**
 * The delivery queue on the platform's Redis (BullMQ): one job per delivery attempt (`jobId` `<delivery id>.<n>`, so
 * queueing the same attempt twice, from the fan-out and from the sweep that rebuilds the queue, keeps one job), due
 * now or after the retry delay. BullMQ gives the worker its locks, stalled-job recovery and delayed jobs; the retry
 * schedule and the record of each attempt are ours (DeliveryStore), so losing Redis loses no delivery.
 *
 * A first attempt queued by the fan-out carries the delivery as it was created and its event (`first`): the worker
 * then reads neither from the database (on FerretDB v1 each read is a pass over a collection that grows with every
 * write). Both are as the database has them at that moment (an event never changes); what may change before the
 * attempt (the webhook, its owner's rights, whether the attempt was made) is still read or claimed at the attempt.
 * Retries, redeliveries and the sweep's jobs carry only the id. The event is its public representation and audience,
 * as the feed shows it: no secret, token or key.
 */
import { Queue, type ConnectionOptions } from 'bullmq';
import type { DeliveryDocument } from './delivery-store';
import type { StoredEvent } from './event-store';

export const DELIVERY_QUEUE = 'webhook-deliveries';

/** A Date as JSON has it (BullMQ keeps job data as JSON). */
type Json<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

export interface DeliveryJob {
  deliveryId: string;
  /** A first attempt's delivery and event, from the fan-out (absent: the worker reads the delivery, then its event). */
  first?: { delivery: Json<DeliveryDocument>; event: Json<StoredEvent> | null };
}

/** What the fan-out hands the queue for a first attempt. */
export interface FirstAttempt {
  delivery: DeliveryDocument;
  event: StoredEvent | null;
}

/** The delivery and event a first attempt's job carries, with their dates again. */
export function firstAttemptOf(job: DeliveryJob): FirstAttempt | undefined {
  if (!job.first) return undefined;
  const { delivery, event } = job.first;
  return {
    delivery: {
      ...delivery,
      nextAttemptAt: new Date(delivery.nextAttemptAt),
      createdAt: new Date(delivery.createdAt),
      updatedAt: new Date(delivery.updatedAt),
    },
    event: event && { ...event, occurredAt: new Date(event.occurredAt), storedAt: new Date(event.storedAt) },
  };
}

export class DeliveryQueue {
  readonly queue: Queue<DeliveryJob>;

  constructor(connection: ConnectionOptions, prefix = 'api-platform') {
    this.queue = new Queue<DeliveryJob>(DELIVERY_QUEUE, { connection, prefix });
    // A Redis that is away is the sweep's problem (it re-queues what is due); do not crash on the emitter.
    this.queue.on('error', () => undefined);
  }

  async enqueue(deliveryId: string, attempt: number, delayMs = 0): Promise<void> {
    await this.enqueueMany([{ deliveryId, attempt, delayMs }]);
  }

  /**
   * Queues try `attempt` to run now, also when it is queued already for later (a retry's backoff): a job id is taken
   * once, so adding it again would leave the try waiting for that backoff. A job that started meanwhile is left to run.
   */
  async enqueueNow(deliveryId: string, attempt: number): Promise<void> {
    await this.enqueue(deliveryId, attempt);
    const queued = await this.queue.getJob(`${deliveryId}.${attempt}`);
    if (queued && (await queued.isDelayed())) await queued.promote().catch(() => undefined);
  }

  /** Queues many attempts in one round trip (a fan-out, a sweep); a first attempt may carry its delivery and event. */
  async enqueueMany(
    attempts: ReadonlyArray<{ deliveryId: string; attempt: number; delayMs?: number; first?: FirstAttempt }>,
  ): Promise<void> {
    if (attempts.length === 0) return;
    await this.queue.addBulk(
      attempts.map(({ deliveryId, attempt, delayMs = 0, first }) => ({
        name: 'deliver',
        // JSON, as BullMQ stores it (firstAttemptOf revives the dates).
        data: first ? { deliveryId, first: JSON.parse(JSON.stringify(first)) as DeliveryJob['first'] } : { deliveryId },
        opts: {
          jobId: `${deliveryId}.${attempt}`,
          delay: Math.max(0, delayMs),
          attempts: 1,
          // Gone once done or failed, so the sweep can queue the same attempt again if the database says it is due.
          removeOnComplete: true,
          removeOnFail: true,
        },
      })),
    );
  }

  /** Removes queued tries (waiting or delayed; one that is running is left to finish). */
  async discard(attempts: ReadonlyArray<{ deliveryId: string; attempt: number }>): Promise<void> {
    for (const { deliveryId, attempt } of attempts) {
      // A job that a worker holds refuses removal: it finds its delivery gone and sends nothing.
      await this.queue.remove(`${deliveryId}.${attempt}`).catch(() => 0);
    }
  }

  /** Jobs waiting, delayed and running: the queue depth metric. */
  async depth(): Promise<Record<'waiting' | 'delayed' | 'active', number>> {
    const counts = await this.queue.getJobCounts('waiting', 'delayed', 'active');
    return {
      waiting: counts['waiting'] ?? 0,
      delayed: counts['delayed'] ?? 0,
      active: counts['active'] ?? 0,
    };
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
