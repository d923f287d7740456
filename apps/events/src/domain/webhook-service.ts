/**
 * Webhooks: a user's endpoints and their deliveries. Any signed-in user manages its own (bearer token: an API key, a
 * read credential, cannot add endpoints that would carry data away); an admin manages every one. Someone else's
 * webhook is absent (404), not forbidden: its existence is nobody else's business. The signing secret is answered once,
 * at creation and at each rotation, and kept sealed (libs/events SecretBox).
 *
 * A webhook carries at most the read scopes of the token that created it (`scopes`): a token narrowed to `items:read`
 * cannot make an endpoint that streams accounts or posts, nor change (or re-point) a webhook that carries more than it
 * may read (403). Its delivery log lists only the deliveries of events the caller may read now.
 * Every write records its event with its actor, never a secret; only the owner re-points or re-keys (ADR 0024).
 */
import { AppError, notFound, validationError } from '@platform/errors';
import type { EventOutbox, WriteEvent } from '@platform/mongo';
import { isAdmin, requirePrincipal, type Caller, type Principal } from '@platform/auth';
import { isSafeText, parseEntityId, UNSAFE_TEXT_MESSAGE } from '@platform/contracts';
import {
  buildEvent,
  EVENT_READ_SCOPES,
  EVENT_TYPES,
  eventTypeScope,
  newEventId,
  newSigningSecret,
  PING_EVENT_TYPE,
  readableEventsFilter,
  canReadEvent,
  type EventReadScope,
  type EventType,
} from '@platform/events';
import type {
  DeliveryStore,
  DeliveryView,
  EventFanOut,
  WebhookDocument,
  WebhookStore,
} from '@platform/webhooks';
import {
  addressClass,
  canonicalAddress,
  isLocalhostName,
  newDelivery,
  webhookRepresentation,
  webhookScopes,
} from '@platform/webhooks';

export interface WebhookInput {
  url?: string | null;
  eventTypes?: readonly string[] | null;
  description?: string | null;
  enabled?: boolean | null;
}

export interface WebhookSettings {
  production: boolean;
  /** The delivery worker may send to loopback (WEBHOOK_ALLOW_LOOPBACK, or WEBHOOK_EGRESS=loopback). */
  allowLoopback: boolean;
  overlapSeconds: number;
  maxPerOwner: number;
}

export type DeliveryWithAttempts = DeliveryView;

const fail = (field: string, message: string): never => {
  throw validationError([{ field, message }]);
};

const MAX_URL = 2_048;
/** Rotations of one webhook racing each other: each reads again and retries this often before answering 409. */
const ROTATE_ATTEMPTS = 10;

/** The read scopes a caller's token carries: what a webhook it creates may deliver. */
const readScopesOf = (principal: Principal): EventReadScope[] =>
  EVENT_READ_SCOPES.filter((scope) => principal.scopes.includes(scope));

export class WebhookService {
  constructor(
    private readonly webhooks: WebhookStore,
    private readonly deliveries: DeliveryStore,
    private readonly fanOut: EventFanOut,
    private readonly settings: WebhookSettings,
    /** The events database's change log (the relay publishes locally); absent: webhook writes record no event. */
    private readonly outbox?: EventOutbox,
  ) {}

  /** A webhook write's event: its true actor, the webhook's representation (no secret), private to its owner. */
  private webhookEvent(caller: Caller, type: EventType): WriteEvent<WebhookDocument> | undefined {
    const outbox = this.outbox;
    if (!outbox) return undefined;
    return {
      outbox,
      of: (webhook) =>
        buildEvent(caller, type, { type: 'webhook', id: webhook._id }, webhookRepresentation(webhook), {
          scope: 'users:read',
          ownerId: webhook.ownerId,
          private: true,
        }),
    };
  }

  /** Only a webhook's owner sets where it sends and what signs it (an admin's change of either is refused). */
  private requireOwner(caller: Caller, webhook: WebhookDocument, what: string): void {
    if (this.owner(caller).userId !== webhook.ownerId) {
      throw new AppError(
        'FORBIDDEN',
        `Not enough permissions: only the webhook's owner may change its ${what}`,
      );
    }
  }

  /** A user's own bearer token (no API key, no service): who may hold webhooks. */
  private owner(caller: Caller): Principal {
    const principal = requirePrincipal(caller.principal, caller.authError);
    if (principal.kind !== 'user' || principal.userId === null) {
      throw new AppError(
        'FORBIDDEN',
        'Not enough permissions: webhooks are managed with a user’s access token',
      );
    }
    return principal;
  }

  private checkUrl(raw: unknown): string {
    if (typeof raw !== 'string' || raw.length === 0) return fail('url', 'is required');
    if (raw.length > MAX_URL) return fail('url', `at most ${MAX_URL} characters`);
    // The URL parser drops tabs and newlines and trims spaces: a URL is taken only as written.
    const control = [...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
    if (control || /\s/.test(raw)) return fail('url', 'must not contain whitespace or control characters');
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return fail('url', 'must be an absolute URL');
    }
    if (url.protocol !== 'https:' && (this.settings.production || url.protocol !== 'http:')) {
      return fail('url', this.settings.production ? 'must be an https URL' : 'must be an http or https URL');
    }
    // The host as written: the parser makes `http:///x`, `http:x` and `http:\\x` a URL to host `x`, and drops `@`.
    const authority = /^https?:\/\/([^/\\?#]*)/i.exec(raw)?.[1];
    if (url.username || url.password || authority?.includes('@'))
      return fail('url', 'must not hold credentials');
    if (!authority || authority.startsWith(':'))
      return fail('url', 'must name a host: scheme://host[:port]/path');
    if (authority.endsWith(':')) return fail('url', 'must not have an empty port');
    if (url.hash) return fail('url', 'must not hold a fragment');
    // An IP literal (any form the parser reads as one) is judged here as the worker would: one it refuses is no
    // endpoint. A name is judged at each delivery, on what it resolves to then.
    const range = canonicalAddress(url.hostname)
      ? addressClass(url.hostname)
      : isLocalhostName(url.hostname)
        ? 'loopback'
        : null;
    if (range !== null && range !== 'unicast' && !(range === 'loopback' && this.settings.allowLoopback))
      return fail('url', 'must point at a public address: its host is not one');
    // Kept as written (each attempt parses it again): the parsed form may be longer than the limit the input met
    // (`https://host` gains its `/`, an IDN its punycode).
    return raw;
  }

  /** The event types asked for, each known and of a scope the webhook carries (`*`: every type it may carry). */
  private checkTypes(raw: unknown, scopes: readonly EventReadScope[]): string[] {
    if (!Array.isArray(raw) || raw.length === 0)
      return fail('event_types', 'at least one event type, or `*`');
    const types = [...new Set(raw as unknown[])];
    if (types.length > EVENT_TYPES.length + 1) return fail('event_types', 'too many event types');
    for (const type of types) {
      if (typeof type !== 'string' || (type !== '*' && !(EVENT_TYPES as readonly string[]).includes(type))) {
        return fail('event_types', `unknown event type: ${String(type)}`);
      }
      if (type !== '*' && !scopes.includes(eventTypeScope(type as EventType))) {
        return fail(
          'event_types',
          `${type} needs the ${eventTypeScope(type as EventType)} scope, which this token does not carry`,
        );
      }
    }
    return types as string[];
  }

  private checkDescription(raw: unknown): string | null {
    if (raw === undefined || raw === null) return null;
    if (typeof raw !== 'string' || raw.length > 500) return fail('description', 'at most 500 characters');
    if (!isSafeText(raw)) return fail('description', UNSAFE_TEXT_MESSAGE);
    return raw;
  }

  async create(caller: Caller, input: WebhookInput): Promise<{ webhook: WebhookDocument; secret: string }> {
    const principal = this.owner(caller);
    const scopes = readScopesOf(principal);
    if (scopes.length === 0) {
      throw new AppError(
        'FORBIDDEN',
        `Not enough permissions. Required: one of ${EVENT_READ_SCOPES.join(', ')}`,
      );
    }
    const url = this.checkUrl(input.url);
    const eventTypes = this.checkTypes(input.eventTypes, scopes);
    const description = this.checkDescription(input.description);
    const owned = await this.webhooks.list({ ownerId: principal.userId! });
    if (owned.length >= this.settings.maxPerOwner) {
      throw new AppError(
        'CONFLICT',
        `At most ${this.settings.maxPerOwner} webhooks per user; delete one first`,
      );
    }
    const secret = newSigningSecret();
    const now = new Date();
    const webhook = await this.webhooks.create(
      (id) => ({
        _id: id,
        ownerId: principal.userId!,
        url,
        eventTypes,
        scopes,
        description,
        status: 'enabled',
        disabledReason: null,
        createdAt: now,
        updatedAt: now,
      }),
      secret,
      this.webhookEvent(caller, 'webhook.created'),
    );
    return { webhook, secret };
  }

  list(caller: Caller): Promise<WebhookDocument[]> {
    const principal = this.owner(caller);
    return this.webhooks.list(isAdmin(principal) ? {} : { ownerId: principal.userId! });
  }

  async get(caller: Caller, rawId: unknown): Promise<WebhookDocument | null> {
    const principal = this.owner(caller);
    const webhook = await this.webhooks.findById(parseEntityId(rawId, 'id'));
    return webhook && (isAdmin(principal) || webhook.ownerId === principal.userId) ? webhook : null;
  }

  private async require(caller: Caller, rawId: unknown): Promise<WebhookDocument> {
    const webhook = await this.get(caller, rawId);
    if (!webhook) throw notFound('Webhook', String(rawId));
    return webhook;
  }

  /**
   * A webhook the caller may change: its own (or any, for an admin), and only with a token that carries every scope
   * the webhook does, so a narrowed token cannot re-point, re-key or widen what a wider token set up (404 before 403).
   */
  private async requireManaged(caller: Caller, rawId: unknown): Promise<WebhookDocument> {
    const webhook = await this.require(caller, rawId);
    const held = readScopesOf(this.owner(caller));
    const missing = webhookScopes(webhook).filter((scope) => !held.includes(scope));
    if (missing.length > 0) {
      throw new AppError('FORBIDDEN', `Not enough permissions. Required: ${missing.join(' ')}`);
    }
    return webhook;
  }

  async update(
    caller: Caller,
    rawId: unknown,
    input: WebhookInput,
    expectedVersion?: number | null,
  ): Promise<WebhookDocument> {
    const webhook = await this.requireManaged(caller, rawId);
    const changes: Parameters<WebhookStore['update']>[1] = {};
    if (input.url !== undefined && input.url !== webhook.url) this.requireOwner(caller, webhook, 'url');
    if (input.url !== undefined) changes.url = this.checkUrl(input.url);
    if (input.eventTypes !== undefined)
      changes.eventTypes = this.checkTypes(input.eventTypes, webhookScopes(webhook));
    if (input.description !== undefined) changes.description = this.checkDescription(input.description);
    if (input.enabled !== undefined && input.enabled !== null) {
      changes.status = input.enabled ? 'enabled' : 'disabled';
      changes.disabledReason = input.enabled ? null : 'by its owner';
    }
    const updated = await this.webhooks.update(
      webhook._id,
      changes,
      expectedVersion,
      this.webhookEvent(caller, 'webhook.updated'),
    );
    if (!updated) throw notFound('Webhook', webhook._id);
    return updated;
  }

  async delete(caller: Caller, rawId: unknown, expectedVersion?: number | null): Promise<boolean> {
    const webhook = await this.requireManaged(caller, rawId);
    const deleted = await this.webhooks.delete(
      webhook._id,
      expectedVersion,
      this.webhookEvent(caller, 'webhook.deleted'),
    );
    if (!deleted) throw notFound('Webhook', webhook._id);
    await this.deliveries.deleteOfWebhook(webhook._id);
    return true;
  }

  /**
   * A new secret, answered once; the current one keeps signing beside it for `overlapSeconds` (default
   * WEBHOOK_SECRET_OVERLAP_SECONDS; 0 ends it now), so receivers can switch without losing a delivery.
   */
  async rotate(
    caller: Caller,
    rawId: unknown,
    overlapSeconds?: number | null,
  ): Promise<{ webhook: WebhookDocument; secret: string }> {
    let webhook = await this.requireManaged(caller, rawId);
    this.requireOwner(caller, webhook, 'signing secret');
    const overlap = overlapSeconds ?? this.settings.overlapSeconds;
    if (!Number.isInteger(overlap) || overlap < 0 || overlap > 604_800) {
      fail('overlap_seconds', 'must be an integer from 0 to 604800');
    }
    const secret = newSigningSecret();
    // The new list of secrets is made from the webhook as read, so it is written only at the version read: a rotation
    // racing another reads again and keeps the other's new secret (as the one rotated out), instead of writing over it
    // and leaving a secret that was answered but never signs.
    for (let attempt = 1; ; attempt += 1) {
      const now = new Date();
      const until = new Date(now.getTime() + overlap * 1000);
      // The current secret signs until `until`; one already rotated out stops now (at most two live at a time). It is
      // sealed anew under the current key if an accepted one sealed it, and dropped if no key opens it (it could sign
      // nothing: the rotation is how an owner recovers from a lost WEBHOOK_SECRETS_KEY).
      const kept = this.webhooks.resealed(
        {
          _id: webhook._id,
          secrets: webhook.secrets
            .filter((s) => s.expiresAt === null)
            .map((s) => ({ ...s, expiresAt: overlap === 0 ? now : until }))
            .filter((s) => s.expiresAt > now),
        },
        true,
      ).secrets;
      try {
        const updated = await this.webhooks.update(
          webhook._id,
          { secrets: [this.webhooks.seal(webhook._id, secret), ...kept] },
          webhook.version ?? 0,
          this.webhookEvent(caller, 'webhook.secret_rotated'),
        );
        if (!updated) throw notFound('Webhook', webhook._id);
        return { webhook: updated, secret };
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'PRECONDITION_FAILED')) throw error;
        if (attempt >= ROTATE_ATTEMPTS) {
          throw new AppError('CONFLICT', 'The webhook is being changed by others; retry');
        }
        webhook = await this.requireManaged(caller, rawId);
      }
    }
  }

  /** A `webhook.ping` message to the endpoint, delivered (and logged) like any event. */
  async ping(caller: Caller, rawId: unknown): Promise<DeliveryWithAttempts> {
    const webhook = await this.requireManaged(caller, rawId);
    const now = new Date();
    const messageId = newEventId(now.getTime()).replace(/^evt_/, 'msg_');
    const body = {
      id: messageId,
      type: PING_EVENT_TYPE,
      occurred_at: now.toISOString(),
      data: { webhook_id: webhook._id },
    };
    const delivery = newDelivery(
      webhook,
      { id: messageId, type: PING_EVENT_TYPE, eventId: null, body, audience: null },
      now,
    );
    await this.deliveries.createMany([delivery]);
    await this.fanOut.enqueue([delivery]);
    return { ...delivery, attemptLog: [] };
  }

  /**
   * A webhook's deliveries newest first, each with its attempts: only those of events the caller may read now (a
   * delivery of another member's private event, pending until the worker withholds it, shows nothing of it), and
   * withheld ones (never sent) only for admins.
   */
  async deliveriesOf(
    caller: Caller,
    rawId: unknown,
    args: { first?: number | null; after?: string | null },
    max = 100,
  ): Promise<{
    nodes: DeliveryWithAttempts[];
    pageInfo: { endCursor: string | null; hasNextPage: boolean };
  }> {
    const webhook = await this.require(caller, rawId);
    const first = args.first ?? 20;
    if (!Number.isInteger(first) || first < 1 || first > max)
      fail('first', `must be an integer from 1 to ${max}`);
    const principal = this.owner(caller);
    const admin = isAdmin(principal);
    const found = await this.deliveries.ofWebhook(webhook._id, {
      withheld: admin,
      // What the caller reads now, and of private events only the webhook owner's (the only ones it may deliver).
      readable: {
        $and: [
          readableEventsFilter(principal) ?? {},
          { $or: [{ 'audience.private': false }, { 'audience.ownerId': webhook.ownerId }] },
        ],
      },
      before: args.after ?? null,
      first: first + 1,
    });
    const page = found.slice(0, first);
    return {
      nodes: await this.deliveries.views(page),
      pageInfo: { endCursor: page.at(-1)?._id ?? null, hasNextPage: found.length > first },
    };
  }

  /** Sends one delivery again (a new attempt, the same `webhook-id`): from its log, also after it was delivered or failed. */
  async redeliver(caller: Caller, rawId: unknown, deliveryId: string): Promise<DeliveryWithAttempts> {
    const webhook = await this.requireManaged(caller, rawId);
    const delivery = await this.deliveries.viewById(deliveryId);
    const principal = this.owner(caller);
    const admin = isAdmin(principal);
    if (
      !delivery ||
      delivery.webhookId !== webhook._id ||
      (delivery.state === 'withheld' && !admin && !delivery.overBudget) ||
      (delivery.audience &&
        (!canReadEvent(principal, delivery.audience) ||
          (delivery.audience.private && delivery.audience.ownerId !== webhook.ownerId)))
    ) {
      throw notFound('Delivery', deliveryId);
    }
    if (webhook.status !== 'enabled') {
      throw new AppError('CONFLICT', 'The webhook is disabled; enable it before redelivering');
    }
    // The next try follows every one made (its log's: a try's claim is there even when nothing else counted it).
    return this.fanOut.redeliver(delivery);
  }
}
