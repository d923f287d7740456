/** What the events tests share: waiting for something that arrives asynchronously (an event, a delivery). */

/** Polls `probe` until it returns something other than undefined; fails after `timeoutMs` naming `what`. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 45_000,
  what = 'it',
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
