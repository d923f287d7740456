/**
 * Webhook endpoints (`webhooks`): integer ids, an owner, the URL, the event types, and the signing secrets, sealed
 * (SecretBox) under the current key of WEBHOOK_SECRETS_KEY's ring, never stored or logged in clear. A rotation adds a
 * new secret and keeps the previous one until its `expiresAt`: deliveries meanwhile carry both signatures.
 */
import type { Db, Filter } from 'mongodb';
import { AppError } from '@platform/errors';
import {
  EVENT_READ_SCOPES,
  UnreadableSecretError,
  type EventReadScope,
  type SecretBox,
} from '@platform/events';
import {
  deletedAccount,
  DeletionMarks,
  deleteVersioned,
  SequencedCollection,
  updateVersioned,
  type Versioned,
  type WriteEvent,
} from '@platform/mongo';

export const WEBHOOKS_COLLECTION = 'webhooks';

export interface SealedSecret {
  sealed: string;
  createdAt: Date;
  /** null: current; a date: a rotated-out secret, still signed with until then. */
  expiresAt: Date | null;
}

export interface WebhookDocument extends Versioned {
  _id: number;
  ownerId: number;
  url: string;
  /** Types it receives; `*` alone: every type. */
  eventTypes: string[];
  /**
   * The read scopes its deliveries are bound to: those of the token that created it (a token narrowed to `items:read`
   * makes a webhook that never carries an account or a post). Absent on webhooks made before webhooks carried scopes:
   * every read scope (see webhookScopes).
   */
  scopes?: EventReadScope[];
  description: string | null;
  status: 'enabled' | 'disabled';
  /** Why it is disabled (`failing`: every attempt of a delivery failed over the whole retry schedule; `owner`). */
  disabledReason: string | null;
  secrets: SealedSecret[];
  createdAt: Date;
  updatedAt: Date;
}

export type WebhookChanges = Partial<
  Pick<WebhookDocument, 'url' | 'eventTypes' | 'description' | 'status' | 'disabledReason' | 'secrets'>
>;

/** The read scopes a webhook's deliveries may carry (besides what its owner's role allows at delivery). */
export const webhookScopes = (webhook: Pick<WebhookDocument, 'scopes'>): EventReadScope[] =>
  webhook.scopes ?? [...EVENT_READ_SCOPES];

export const subscribes = (webhook: Pick<WebhookDocument, 'eventTypes'>, type: string): boolean =>
  webhook.eventTypes.includes('*') || webhook.eventTypes.includes(type);

/**
 * A webhook as its events carry it (its REST representation: never a secret, sealed or not), and when the secret
 * rotated out last keeps signing.
 */
export function webhookRepresentation(webhook: WebhookDocument): Record<string, unknown> {
  const now = Date.now();
  const previous = webhook.secrets
    .flatMap((s) =>
      s.expiresAt !== null && new Date(s.expiresAt).getTime() > now ? [new Date(s.expiresAt)] : [],
    )
    .sort((a, b) => b.getTime() - a.getTime())[0];
  return {
    id: webhook._id,
    url: webhook.url,
    event_types: webhook.eventTypes,
    scopes: webhookScopes(webhook),
    description: webhook.description,
    status: webhook.status,
    disabled_reason: webhook.disabledReason,
    owner_id: webhook.ownerId,
    previous_secret_expires_at: previous?.toISOString() ?? null,
    created_at: new Date(webhook.createdAt).toISOString(),
    updated_at: new Date(webhook.updatedAt).toISOString(),
  };
}

export class WebhookStore extends SequencedCollection<WebhookDocument> {
  /** Accounts whose deletion is under way or done (ADR 0009): none keeps a webhook. */
  private readonly marks: DeletionMarks;

  constructor(
    db: Db,
    private readonly box: SecretBox,
  ) {
    super(db, WEBHOOKS_COLLECTION);
    this.marks = new DeletionMarks(db);
  }

  /** Seals `secret` for webhook `id` (bound to it: a sealed secret copied onto another webhook does not open). */
  seal(id: number, secret: string, expiresAt: Date | null = null): SealedSecret {
    return { sealed: this.box.seal(secret, `webhook:${id}`), createdAt: new Date(), expiresAt };
  }

  /** The secrets still signing at `now`: the current one and those rotated out less than their overlap ago. */
  private live(webhook: WebhookDocument, now: Date): SealedSecret[] {
    return webhook.secrets.filter((s) => s.expiresAt === null || s.expiresAt > now);
  }

  /**
   * The secrets a delivery signs with now, opened with any key of the ring. UnreadableSecretError when no key opens
   * the current one; a rotated-out one no key opens is left out (it signs for nobody any more).
   */
  signingSecrets(webhook: WebhookDocument, now = new Date()): string[] {
    const opened: string[] = [];
    for (const secret of this.live(webhook, now)) {
      try {
        opened.push(this.box.open(secret.sealed, `webhook:${webhook._id}`));
      } catch (error) {
        if (!(error instanceof UnreadableSecretError) || secret.expiresAt === null) throw error;
      }
    }
    return opened;
  }

  /**
   * `secrets` with each one that an accepted key sealed sealed anew under the current key (`changed`: any was); one no
   * key opens is kept as it is (`unreadable`), or left out with `dropUnreadable`.
   */
  resealed(
    webhook: Pick<WebhookDocument, '_id' | 'secrets'>,
    dropUnreadable = false,
  ): { secrets: SealedSecret[]; changed: boolean; unreadable: number } {
    let changed = false;
    let unreadable = 0;
    const secrets = webhook.secrets.flatMap((secret) => {
      try {
        const { plain, stale } = this.box.openWithKey(secret.sealed, `webhook:${webhook._id}`);
        if (!stale) return [secret];
        changed = true;
        return [{ ...secret, sealed: this.box.seal(plain, `webhook:${webhook._id}`) }];
      } catch (error) {
        if (!(error instanceof UnreadableSecretError)) throw error;
        unreadable += 1;
        return dropUnreadable ? [] : [secret];
      }
    });
    return { secrets, changed, unreadable };
  }

  /**
   * Seals again under the current key what an accepted key sealed, on every webhook: each write a versioned one made
   * from the webhook as it is under the version's claim (ADR 0008), so a rotation racing it (in any replica) is never
   * written over. Its version moves, as for any write. Resolves how many webhooks were re-sealed, how many are still
   * due (their write failed: the next pass tries again), and how many hold a secret no key opens.
   */
  async resealAll(): Promise<{ resealed: number; due: number; unreadable: number }> {
    const counts = { resealed: 0, due: 0, unreadable: 0 };
    for (const webhook of await this.collection.find({}).toArray()) {
      const found = this.resealed(webhook);
      if (found.unreadable > 0) counts.unreadable += 1;
      if (!found.changed) continue;
      try {
        const written = await updateVersioned(this.versioned, webhook._id, (current: WebhookDocument) => ({
          secrets: this.resealed(current).secrets,
        }));
        if (written) counts.resealed += 1;
      } catch {
        counts.due += 1;
      }
    }
    return counts;
  }

  /** Inserts the webhook built with a new id, its event recorded around the insert when given (ADR 0023). */
  async create(
    build: (id: number) => Omit<WebhookDocument, 'secrets'>,
    secret: string,
    event?: WriteEvent<WebhookDocument>,
  ): Promise<WebhookDocument> {
    const id = await this.nextId();
    // The owner's token may outlive its account by a request in flight: after the insert, the owner's deletion mark
    // (written before the purge sweeps its webhooks) undoes it, and nothing is published.
    return this.insertRecorded(
      { ...build(id), secrets: [this.seal(id, secret)] },
      event,
      async (document) => {
        const undone = await this.marks.undoIfMarked([deletedAccount(document.ownerId)], () =>
          this.collection.deleteOne({ _id: id }),
        );
        if (undone.length > 0) throw new AppError('UNAUTHENTICATED', 'Invalid token');
      },
    );
  }

  /**
   * An account's deletion: marks it deleted (so a creation racing this undoes itself), then resolves the ids of its
   * webhooks, which the caller removes with their deliveries (deleteOfOwner last, so a retry finds them again).
   */
  async markOwnerDeleted(ownerId: number): Promise<number[]> {
    await this.marks.mark(deletedAccount(ownerId));
    const owned = await this.collection.find({ ownerId }, { projection: { _id: 1 } }).toArray();
    return owned.map((webhook) => webhook._id);
  }

  /** Deletes every webhook of the owner (its deletion); resolves how many went. */
  async deleteOfOwner(ownerId: number): Promise<number> {
    return (await this.collection.deleteMany({ ownerId })).deletedCount;
  }

  findById(id: number): Promise<WebhookDocument | null> {
    return this.collection.findOne({ _id: id });
  }

  /** Every enabled webhook (the fan-out reads them all: a few per tenant, not a collection to page through). */
  enabled(): Promise<WebhookDocument[]> {
    return this.collection.find({ status: 'enabled' }).toArray();
  }

  list(filter: Filter<WebhookDocument>): Promise<WebhookDocument[]> {
    return this.collection.find(filter).sort({ _id: 1 }).toArray();
  }

  /** The next version with `changes`; null when absent; PRECONDITION_FAILED on a stale `expectedVersion`. */
  update(
    id: number,
    changes: WebhookChanges,
    expectedVersion?: number | null,
    event?: WriteEvent<WebhookDocument>,
  ): Promise<WebhookDocument | null> {
    return updateVersioned(
      this.versioned,
      id,
      { ...changes, updatedAt: new Date() },
      expectedVersion,
      {},
      { event },
    );
  }

  /** Deletes the webhook (at `expectedVersion` when given), with its event when given; false when absent. */
  delete(id: number, expectedVersion?: number | null, event?: WriteEvent<WebhookDocument>): Promise<boolean> {
    return deleteVersioned(this.versioned, id, expectedVersion, {}, undefined, { event });
  }
}
