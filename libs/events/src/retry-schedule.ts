/**
 * When a failed delivery is tried again: a schedule of delays (seconds after the previous attempt), each stretched by
 * up to +/-20 % of random jitter so endpoints that failed together are not all retried in the same second. The
 * default runs about 3 days, as Stripe's does: 10 attempts after the first, the last ~71.6 h after it.
 */
export const DEFAULT_RETRY_SCHEDULE = '5,60,300,1800,7200,18000,36000,36000,72000,86400';

/** Parses a comma-separated list of positive delays in seconds (the WEBHOOK_RETRY_SCHEDULE setting). */
export function retrySchedule(raw: string): number[] {
  const delays = raw.split(',').map((part) => Number(part.trim()));
  if (delays.length === 0 || delays.some((d) => !Number.isFinite(d) || d <= 0)) {
    throw new Error('a retry schedule is a comma-separated list of positive numbers of seconds');
  }
  return delays;
}

/**
 * The wait before attempt `attempt + 1` (attempt 1 is the first), or null when the schedule is spent. `random` in [0, 1)
 * (Math.random by default).
 */
export function nextAttemptDelayMs(
  schedule: readonly number[],
  attempt: number,
  random: () => number = Math.random,
): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * 1000 * (0.8 + 0.4 * random()));
}
