/** Waiting for a condition instead of a fixed time: poll with a deadline, fail naming what never came. */

/** Polls `probe` every `intervalMs` until it returns something other than undefined; fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 45_000,
  what = 'it',
  intervalMs = 100,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Polls `condition` until it holds; fails after `timeoutMs` naming `what`. */
export async function waitUntil(
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 45_000,
  what = 'the condition',
  intervalMs = 100,
): Promise<void> {
  await waitFor(async () => ((await condition()) ? true : undefined), timeoutMs, what, intervalMs);
}
