/**
 * What every subgraph that records events reads (ADR 0023): whether it does, where the events service is, and how long
 * a write may take before the relay's sweep decides about its event. One definition, so the four subgraphs read the
 * same names with the same defaults.
 */
import { z } from 'zod';
import { booleanFlag } from './common-environment';

export const eventsRelayEnvironment = z.object({
  /** `off`: writes record no events (benchmarks of the write path's cost); on in every deployment. */
  EVENTS: booleanFlag(true),
  EVENTS_SUBGRAPH_URL: z.string().url().default('http://127.0.0.1:4005/graphql'),
  /**
   * An outbox entry older than this is the sweep's: its write either happened or never will. Keep it above 8 s with
   * more than one replica: a committed write's claim is dropped up to 8 s after its commit (ADR 0023), and until then
   * another replica's sweep publishes its event again (recorded once, but work all the same).
   */
  EVENTS_SWEEP_AFTER_MS: z.coerce.number().int().min(200).max(3_600_000).default(10_000),
  /**
   * Fault injection for crash tests: `crash-after-write:<n>` SIGKILLs the process between its n-th committed write and
   * that write's publish. Ignored when NODE_ENV=production.
   */
  EVENTS_FAULT_POINT: z
    .string()
    .regex(/^crash-after-write:[1-9]\d*$/, 'crash-after-write:<n>')
    .optional(),
});

export type EventsRelayEnvironment = z.infer<typeof eventsRelayEnvironment>;

/** The write count EVENTS_FAULT_POINT names, or undefined (unset, or production). */
export const crashAfterWriteOf = (env: {
  NODE_ENV: string;
  EVENTS_FAULT_POINT?: string | undefined;
}): number | undefined =>
  env.NODE_ENV === 'production' || !env.EVENTS_FAULT_POINT
    ? undefined
    : Number(env.EVENTS_FAULT_POINT.slice('crash-after-write:'.length));
