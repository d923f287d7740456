/**
 * Who reads which event: the scope of the event's kind binds every reader (an admin's narrowed token and an admin's
 * API key too), private events need a login (the owner's, or an admin's), and the MongoDB filter the feed pages with
 * selects exactly the events canReadEvent allows (checked on every reader against every audience). A webhook delivers
 * what its owner reads now within the webhook's scopes, and a private event only to its owner: never another user's
 * API keys or password resets, an admin's endpoint included; a demoted admin's endpoint loses the audit view.
 */
import type { EventAudience } from './event-types';
import { canDeliverEvent, canReadEvent, readableEventsFilter, type EventReader } from './visibility';

const ALL_READ = ['users:read', 'items:read', 'posts:read'];

const audiences: EventAudience[] = [];
for (const scope of ['users:read', 'items:read', 'posts:read'] as const) {
  for (const ownerId of [7, 8, null]) {
    for (const isPrivate of [false, true]) audiences.push({ scope, ownerId, private: isPrivate });
  }
}

const readers: Record<string, EventReader> = {
  member: { kind: 'user', userId: 7, role: 'member', scopes: [...ALL_READ, 'items:write'] },
  memberNarrowedToItems: { kind: 'user', userId: 7, role: 'member', scopes: ['items:read'] },
  memberApiKey: { kind: 'api-key', userId: 7, role: 'member', scopes: ALL_READ },
  admin: { kind: 'user', userId: 1, role: 'admin', scopes: ALL_READ },
  adminNarrowedToItems: { kind: 'user', userId: 1, role: 'admin', scopes: ['items:read'] },
  adminApiKey: { kind: 'api-key', userId: 1, role: 'admin', scopes: ['items:read', 'posts:read'] },
  bootstrapKey: { kind: 'api-key', userId: null, role: 'viewer', scopes: ALL_READ },
  service: { kind: 'service', userId: null, role: 'admin', scopes: ['internal'] },
};

/** The stored form of an event as far as the filter looks at it. */
const stored = (audience: EventAudience) => ({
  'audience.scope': audience.scope,
  'audience.ownerId': audience.ownerId,
  'audience.private': audience.private,
});

/** Evaluates the operators readableEventsFilter uses (equality, $in, $or) on a stored event. */
function matches(filter: Record<string, unknown>, document: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([key, condition]) => {
    if (key === '$or') return (condition as Array<Record<string, unknown>>).some((f) => matches(f, document));
    if (condition !== null && typeof condition === 'object' && '$in' in condition) {
      return (condition.$in as unknown[]).includes(document[key]);
    }
    return document[key] === condition;
  });
}

const readable = (reader: EventReader) =>
  audiences.filter((a) => canReadEvent(reader, a)).map((a) => `${a.scope}/${a.ownerId}/${a.private}`);

describe('event visibility', () => {
  it('when a reader lacks the scope of the kind, then it reads none of those events, admins included', () => {
    for (const name of ['memberNarrowedToItems', 'adminNarrowedToItems']) {
      expect(readable(readers[name]!).every((key) => key.startsWith('items:read/'))).toBe(true);
    }
    expect(readable(readers['adminApiKey']!).some((key) => key.startsWith('users:read/'))).toBe(false);
    expect(readable(readers['service']!)).toEqual([]);
  });

  it('when an event is private, then only its owner’s login or an admin’s login reads it, never an API key', () => {
    const privateOnes = (reader: EventReader) => readable(reader).filter((key) => key.endsWith('/true'));
    expect(privateOnes(readers['member']!)).toEqual([
      'users:read/7/true',
      'items:read/7/true',
      'posts:read/7/true',
    ]);
    expect(privateOnes(readers['memberApiKey']!)).toEqual([]);
    expect(privateOnes(readers['adminApiKey']!)).toEqual([]);
    expect(privateOnes(readers['bootstrapKey']!)).toEqual([]);
    expect(privateOnes(readers['admin']!)).toHaveLength(9);
  });

  it('when the feed filters with readableEventsFilter, then it selects exactly what canReadEvent allows', () => {
    for (const [name, reader] of Object.entries(readers)) {
      const filter = readableEventsFilter(reader);
      for (const audience of audiences) {
        const selected = filter === null || matches(filter, stored(audience));
        expect(`${name} ${JSON.stringify(audience)} ${selected}`).toBe(
          `${name} ${JSON.stringify(audience)} ${canReadEvent(reader, audience)}`,
        );
      }
    }
  });

  it('when a webhook delivers, then only what its owner reads now within the webhook scopes, private events only the owner’s', () => {
    const deliverable = (owner: EventReader | null, scopes: readonly string[]) =>
      audiences
        .filter((a) => canDeliverEvent(owner, scopes, a))
        .map((a) => `${a.scope}/${a.ownerId}/${a.private}`);
    const admin = readers['admin']!;
    // An admin's endpoint: every public event, and of the private ones only the admin's own (user 1: none here).
    expect(deliverable(admin, ALL_READ).filter((key) => key.endsWith('/true'))).toEqual([]);
    expect(deliverable(admin, ALL_READ)).toHaveLength(9);
    // A member's: its own private events, nobody else's.
    expect(deliverable(readers['member']!, ALL_READ).filter((key) => key.endsWith('/true'))).toEqual([
      'users:read/7/true',
      'items:read/7/true',
      'posts:read/7/true',
    ]);
    // A webhook made with a token narrowed to items:read carries item events only, whatever the owner's role.
    expect(
      deliverable(readers['member']!, ['items:read']).every((key) => key.startsWith('items:read/')),
    ).toBe(true);
    expect(deliverable(admin, ['items:read']).every((key) => key.startsWith('items:read/'))).toBe(true);
    // The owner's account gone or deactivated (null), or a viewer now (demoted: read scopes only, no admin view).
    expect(deliverable(null, ALL_READ)).toEqual([]);
    const demoted: EventReader = { kind: 'user', userId: 1, role: 'viewer', scopes: ALL_READ };
    expect(deliverable(demoted, ALL_READ).filter((key) => key.endsWith('/true'))).toEqual([]);
  });
});
