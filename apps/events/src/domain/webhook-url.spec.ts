/**
 * The webhook URL rule at registration and update, without I/O (the stores answer a sentinel once the rule let the
 * URL through): a host as written, and an IP literal of any special-purpose range refused in every WHATWG form.
 */
import { AppError } from '@platform/errors';
import type { Caller } from '@platform/auth';
import type { DeliveryStore, EventFanOut, WebhookDocument, WebhookStore } from '@platform/webhooks';
import { PUBLIC_URLS, SPECIAL_URLS } from '@platform/testing';
import { WebhookService, type WebhookSettings } from './webhook-service';

const PASSED = new Error('the rule let the URL through');
const member: Caller = {
  principal: { kind: 'user', userId: 7, username: 'member', role: 'member', scopes: ['items:read'] },
  authError: null,
};
const existing = { _id: 3, ownerId: 7, scopes: ['items:read'] } as unknown as WebhookDocument;
const stores = {
  list: () => Promise.reject(PASSED),
  findById: () => Promise.resolve(existing),
  update: () => Promise.reject(PASSED),
} as unknown as WebhookStore;

const service = (settings: Partial<WebhookSettings> = {}) =>
  new WebhookService(stores, {} as DeliveryStore, {} as EventFanOut, {
    production: true,
    allowLoopback: false,
    overlapSeconds: 0,
    maxPerOwner: 20,
    ...settings,
  });

/** The field and message the rule answers (BAD_USER_INPUT naming `url`), or 'passed'. */
async function judged(url: string, settings?: Partial<WebhookSettings>, how: 'create' | 'update' = 'create') {
  const webhooks = service(settings);
  try {
    if (how === 'create') await webhooks.create(member, { url, eventTypes: ['item.created'] });
    else await webhooks.update(member, '3', { url });
  } catch (error) {
    if (error === PASSED) return 'passed';
    expect(error).toBeInstanceOf(AppError);
    const { code, details } = error as AppError;
    expect(code).toBe('BAD_USER_INPUT');
    return (details ?? []).map((d) => `${d.field}: ${d.message}`).join('; ');
  }
  throw new Error('neither refused nor reached the store');
}

describe('the webhook URL rule', () => {
  it.each([
    ['http:///x', 'development'],
    ['https:///x', 'production'],
    ['https:/x', 'production'],
    ['https:x', 'production'],
    ['https:\\\\x/', 'production'],
    ['https://\\x/', 'production'],
    ['https://:443/', 'production'],
    ['https://', 'production'],
  ])('when the URL %s names no host as written (%s), then url is refused on create and update', async (url, mode) => {
    const settings = { production: mode === 'production', allowLoopback: mode === 'development' };
    for (const how of ['create', 'update'] as const)
      expect(await judged(url, settings, how)).toMatch(/^url: must (name a host|be an absolute URL)/);
  });

  it('when the URL holds userinfo, even an empty one, or an empty port, then url is refused', async () => {
    expect(await judged('https://@example.com/')).toBe('url: must not hold credentials');
    expect(await judged('https://user@example.com/')).toBe('url: must not hold credentials');
    expect(await judged('https://:pw@example.com/')).toBe('url: must not hold credentials');
    expect(await judged('https://example.com:/')).toBe('url: must not have an empty port');
  });

  it.each(SPECIAL_URLS.filter(([, range]) => range !== 'loopback'))(
    'when the URL is %s (%s), then registration and re-pointing refuse it, loopback allowed or not',
    async (url) => {
      for (const allowLoopback of [false, true])
        for (const how of ['create', 'update'] as const)
          expect(await judged(url, { allowLoopback }, how)).toBe(
            'url: must point at a public address: its host is not one',
          );
    },
  );

  it.each(SPECIAL_URLS.filter(([, range]) => range === 'loopback'))(
    'when the URL is the loopback literal %s, then it is refused unless the worker may send to loopback',
    async (url) => {
      expect(await judged(url)).toBe('url: must point at a public address: its host is not one');
      expect(await judged(url, { allowLoopback: true })).toBe('passed');
    },
  );

  it('when the host is localhost (RFC 6761), then it is loopback: refused unless the worker may send there', async () => {
    for (const url of ['https://localhost:8443/b', 'https://api.localhost/b', 'https://LOCALHOST./b'])
      expect(await judged(url)).toBe('url: must point at a public address: its host is not one');
    expect(await judged('https://localhost:8443/b', { allowLoopback: true })).toBe('passed');
  });

  it.each(PUBLIC_URLS)('when the URL is the public %s, then it is taken', async (url) => {
    expect(await judged(url)).toBe('passed');
    expect(await judged(url, {}, 'update')).toBe('passed');
  });
});
