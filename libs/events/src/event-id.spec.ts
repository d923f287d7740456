/**
 * Event ids: `evt_` + a monotonic ULID whose randomness comes from a pool the system's CSPRNG fills (event-id.ts). They
 * keep what the feed relies on: the pattern, uniqueness, and the order of creation (the feed sorts and pages by id),
 * also within one millisecond and across the pool's refills.
 */
import { EVENT_ID_PATTERN, isEventId, newEventId } from './event-id';

describe('event ids', () => {
  it('when many ids are made, also within one millisecond and past a refill of the random pool, then each is new, well formed and sorts after the one before', () => {
    const ids: string[] = [];
    const start = Date.now();
    // 600 ids a millisecond for 10 ms, then one a millisecond: 16 bytes of the pool per new millisecond's id.
    for (let i = 0; i < 6_000; i += 1) ids.push(newEventId(start + Math.floor(i / 600)));
    for (let i = 0; i < 600; i += 1) ids.push(newEventId(start + 10 + i));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => EVENT_ID_PATTERN.test(id) && isEventId(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
  });

  it('when ids of different milliseconds are made, then their random parts differ (the pool is not reused)', () => {
    const randomParts = Array.from({ length: 1_000 }, (_, i) => newEventId(Date.now() + 1_000 + i * 2).slice(14));
    expect(new Set(randomParts).size).toBe(randomParts.length);
  });
});
