/**
 * The bounded, short-lived answers the gateway keeps per caller (API key verdicts, account statuses): a Map in
 * insertion order, so its first key is the one to evict. Hand-written rather than a cache package: a dozen lines, and
 * no cache library is a dependency of the platform.
 */
export class ExpiringEntries<K, V extends { expiresAt: number }> {
  private readonly entries = new Map<K, V>();

  /** `touchOnHit`: a hit moves to the back (least recently used goes first); otherwise the oldest write goes first. */
  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number,
    private readonly touchOnHit: boolean,
  ) {}

  /** The live entry for `key`; an expired one is dropped. */
  get(key: K): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    if (this.touchOnHit) this.remember(key, hit);
    return hit;
  }

  /** Keeps `value` as the newest entry, evicting the first ones beyond `maxEntries`. */
  set(key: K, value: V): void {
    this.remember(key, value);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  private remember(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
  }
}
