/**
 * The delivery queue on the platform's Redis (BullMQ): one job per delivery attempt (`jobId` `<delivery id>.<n>`, so
 * queueing the same attempt twice, from the fan-out and from the sweep that rebuilds the queue, keeps one job), due
 * now or after the retry delay. BullMQ gives the worker its locks, stalled-job recovery and delayed jobs; the retry
 * schedule and the record of each attempt are ours (DeliveryStore), so losing Redis loses no delivery.
 */
import { Queue, type ConnectionOptions } from 'bullmq';

export const DELIVERY_QUEUE = 'webhook-deliveries';

export interface DeliveryJob {
  deliveryId: string;
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

  /** Queues many attempts in one round trip (a fan-out, a sweep). */
  async enqueueMany(
    attempts: ReadonlyArray<{ deliveryId: string; attempt: number; delayMs?: number }>,
  ): Promise<void> {
    if (attempts.length === 0) return;
    await this.queue.addBulk(
      attempts.map(({ deliveryId, attempt, delayMs = 0 }) => ({
        name: 'deliver',
        data: { deliveryId },
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
