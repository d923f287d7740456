/**
 * Sends one signed delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`, signed with
 * the `standardwebhooks` library; during a secret rotation the header holds one signature per live secret) through an
 * undici Agent whose sockets resolve through the egress check (egress.ts). No redirect is followed (undici follows
 * none unless told: a 3xx is a failed attempt), the whole attempt is bounded by WEBHOOK_TIMEOUT_MS, at most
 * WEBHOOK_MAX_RESPONSE_BYTES of the answer are read, and production sends only to https URLs.
 */
import { Agent, request } from 'undici';
import { Webhook } from 'standardwebhooks';
import { checkLiteralHost, checkedLookup, EgressRefused, type EgressPolicy, type Resolver } from './egress';

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
  /** Why the attempt failed (never the response body); null when it succeeded. */
  error: string | null;
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

/** A failed attempt's record: what went wrong, in words that name no secret and no response content. */
function failure(error: unknown, durationMs: number): SendResult {
  const refused =
    error instanceof EgressRefused || (error as { cause?: unknown })?.cause instanceof EgressRefused;
  const cause = (error as { cause?: unknown })?.cause;
  const described =
    error instanceof EgressRefused
      ? error.message
      : cause instanceof EgressRefused
        ? cause.message
        : error instanceof Error && error.name === 'TimeoutError'
          ? 'timed out'
          : `${(error as { code?: string })?.code ?? (error instanceof Error ? error.name : 'error')}: ${
              error instanceof Error ? error.message : String(error)
            }`;
  return { ok: false, statusCode: null, durationMs, error: described.slice(0, 300), refused };
}
