/**
 * An account's deletion in the events service (ADR 0002): its webhooks go with their deliveries and queued tries, no
 * try to them or of the account's events sends once the deletion answered, and its events keep no personal data.
 */
import { requireServicePrincipal, type Caller } from '@platform/auth';
import { parseEntityId } from '@platform/contracts';
import { AppError } from '@platform/errors';
import type { DeliveryQueue, DeliveryStore, EventStore, WebhookStore } from '@platform/webhooks';

export interface AccountDeletionSettings {
  /** How long the purge waits for tries on their way before it answers SERVICE_UNAVAILABLE (the deletion is retried). */
  waitMs: number;
  /** The longest one try may take (WEBHOOK_TIMEOUT_MS at most): an older claim without an outcome was interrupted. */
  maxAttemptMs: number;
}

const POLL_MS = 50;

export class AccountDeletion {
  constructor(
    private readonly store: EventStore,
    private readonly webhooks: WebhookStore,
    private readonly deliveries: DeliveryStore,
    private readonly queue: DeliveryQueue | undefined,
    private readonly settings: AccountDeletionSettings,
  ) {}

  /**
   * Internal (users subgraph, on account deletion), idempotent. The account is marked deleted first (ADR 0009): a
   * webhook created meanwhile undoes itself, an event of it stored meanwhile loses its personal data, and every try
   * claimed from now on looks at the mark after its claim and sends nothing to the account's endpoints and nothing
   * personal of it. Then the stored events are stripped, the tries claimed before the mark are waited for, and the
   * webhooks go, their schedules, deliveries, attempts and queued tries first (so a retry finds the webhooks again).
   */
  async purge(caller: Caller, rawUserId: unknown): Promise<boolean> {
    requireServicePrincipal(caller.principal, caller.authError);
    const userId = parseEntityId(rawUserId, 'userId');
    const webhookIds = await this.webhooks.markOwnerDeleted(userId);
    await this.store.forgetAccount(userId);
    const eventIds = await this.store.idsAbout({ type: 'user', id: userId });
    await this.triesSettled(webhookIds, eventIds);
    if (webhookIds.length > 0) {
      const queued = await this.deliveries.schedule
        .find({ webhookId: { $in: webhookIds } }, { projection: { _id: 1, attempts: 1 } })
        .toArray();
      for (const id of webhookIds) await this.deliveries.deleteOfWebhook(id);
      // A try queued for later (a retry's backoff) would only find its delivery gone; it leaves the queue now.
      await this.queue
        ?.discard(queued.map((s) => ({ deliveryId: s._id, attempt: s.attempts + 1 })))
        .catch(() => undefined);
      await this.webhooks.deleteOfOwner(userId);
    }
    return true;
  }

  /** Waits until no try claimed before the mark is on its way to the account's webhooks or with its events. */
  private async triesSettled(webhookIds: readonly number[], eventIds: readonly string[]): Promise<void> {
    const selectors = [
      ...(webhookIds.length > 0 ? [{ webhookId: { $in: [...webhookIds] } }] : []),
      // A delivery's id is `<event id>-<webhook id>`: an index range of `_id` per event.
      ...eventIds.map((id) => ({ _id: { $regex: `^${id}-` } })),
    ];
    if (selectors.length === 0) return;
    const deadline = Date.now() + this.settings.waitMs;
    for (;;) {
      const open = await this.deliveries.triesOnTheirWay({ $or: selectors }, this.settings.maxAttemptMs);
      if (open.length === 0) return;
      if (Date.now() >= deadline) {
        throw new AppError('SERVICE_UNAVAILABLE', 'A webhook delivery of this account is on its way; retry the deletion', {
          headers: { 'retry-after': '5' },
        });
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
