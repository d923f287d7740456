/**
 * Sends one signed delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`, signed with
 * the `standardwebhooks` library; during a secret rotation the header holds one signature per live secret) through an
 * undici Agent whose sockets resolve through the egress check (egress.ts). No redirect is followed (undici follows
 * none unless told: a 3xx is a failed attempt), the whole attempt is bounded by WEBHOOK_TIMEOUT_MS, at most
 * WEBHOOK_MAX_RESPONSE_BYTES of the answer are read, and production sends only to https URLs.
 */
import { Agent, request } from 'undici';
import { Webhook } from 'standardwebhooks';
import {
  checkLiteralHost,
  checkedLookup,
  EgressRefused,
  NOT_PUBLIC,
  type EgressPolicy,
  type Resolver,
} from './egress';

export interface SenderOptions {
  policy: EgressPolicy;
  resolver: Resolver;
  timeoutMs: number;
  maxResponseBytes: number;
  httpsOnly: boolean;
}

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  /**
   * Why the attempt failed, as its owner may read it (never the response body, an address or a resolver's answer);
   * null when it succeeded.
   */
  error: string | null;
  /** What the worker's log says besides (the refused address and its range, the resolver's error); never shown. */
  detail?: string;
  /** The egress check refused the endpoint's address (no connection was made). */
  refused: boolean;
}

export interface SignedMessage {
  id: string;
  timestamp: Date;
  body: string;
  /** Every secret live now: the current one first, then a rotated-out one still within its overlap. */
  secrets: readonly string[];
}

/** The three Standard Webhooks headers of a message. */
export function signatureHeaders(message: SignedMessage): Record<string, string> {
  const signatures = message.secrets.map((secret) =>
    new Webhook(secret).sign(message.id, message.timestamp, message.body),
  );
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(message.timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

export class WebhookSender {
  private readonly agent: Agent;

  constructor(private readonly options: SenderOptions) {
    this.agent = new Agent({
      connect: { lookup: checkedLookup(options.resolver, options.policy), timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connections: 64,
    });
  }

  async send(url: string, message: SignedMessage): Promise<SendResult> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    let target: URL;
    try {
      target = new URL(url);
      if (target.protocol !== 'https:' && (this.options.httpsOnly || target.protocol !== 'http:')) {
        return {
          ok: false,
          statusCode: null,
          durationMs: 0,
          error: 'refused: only https endpoints',
          refused: true,
        };
      }
      checkLiteralHost(target.hostname, this.options.policy);
    } catch (error) {
      return failure(error, 0);
    }
    try {
      const response = await request(target, {
        method: 'POST',
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.options.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'api-platform-webhooks/1',
          ...signatureHeaders(message),
        },
        body: message.body,
      });
      const cut = await this.drain(response.body);
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return {
        ok,
        statusCode: response.statusCode,
        durationMs: took(),
        error: ok
          ? null
          : response.statusCode >= 300 && response.statusCode < 400
            ? 'redirect not followed'
            : cut,
        refused: false,
      };
    } catch (error) {
      return failure(error, took());
    }
  }

  /** Reads at most maxResponseBytes of the answer (nothing of it is kept), then drops the rest of it. */
  private async drain(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string | null> {
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > this.options.maxResponseBytes) {
        body.destroy();
        return `response larger than ${this.options.maxResponseBytes} bytes`;
      }
    }
    return null;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** The resolver's failures: to the owner they read as a refusal, so a name's existence is not told. */
const RESOLUTION_ERRORS = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'EAI_NONAME',
  'ENODATA',
  'ESERVFAIL',
  'ENONAME',
]);
const TIMEOUTS = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/**
 * A failed attempt's record: what went wrong in words that name no secret, no response content and no address (a
 * socket error's message holds the address it tried: the owner gets its code, the worker's log the whole of it).
 */
function failure(error: unknown, durationMs: number): SendResult {
  const cause = (error as { cause?: unknown })?.cause;
  const refusal = error instanceof EgressRefused ? error : cause instanceof EgressRefused ? cause : null;
  const { name, message, code: own } = (error ?? {}) as { name?: unknown; message?: unknown; code?: unknown };
  const code = own ?? (cause as { code?: unknown })?.code;
  const causeMessage = (cause as { message?: unknown })?.message;
  const detail = (
    refusal?.message ?? [message ?? error, causeMessage].filter((part) => part !== undefined).join(': ')
  ).slice(0, 300);
  const owned = (error: string) => ({ ok: false, statusCode: null, durationMs, error, detail, refused: false });
  if (refusal) return { ...owned(refusal.ownerMessage), refused: true };
  if (name === 'TimeoutError') return owned('timed out');
  if (typeof code !== 'string') return owned(typeof name === 'string' ? name : 'error');
  if (RESOLUTION_ERRORS.has(code)) return owned(NOT_PUBLIC);
  return owned(TIMEOUTS.has(code) ? 'timed out' : code);
}
